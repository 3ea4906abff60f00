import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import request from 'supertest';
import { hostedCheckout } from '../ipn/ipn-support';
import { RunningService, startService } from '../support/service';

/*
 * The dashboard and the alert rules in deploy/observability are only useful if every metric they
 * name is one the apps really serve: a typo or a renamed metric would leave a panel empty and an
 * alert silent, and nothing else would say so. This suite reads both files, takes the metric
 * names out of every PromQL expression and looks each one up in a real scrape of the api and the
 * worker. It also checks that every alert carries what an on-call person needs (for, severity,
 * summary, a runbook) and that each runbook link lands on a heading of docs/operations.md.
 */

const ROOT = join(__dirname, '..', '..');
const DASHBOARD = join(ROOT, 'deploy/observability/grafana-dashboard.json');
const ALERTS = join(ROOT, 'deploy/observability/prometheus-alerts.yml');
const OPERATIONS_PAGE = join(ROOT, 'docs', 'operations.md');
const OPERATIONS_SECTION = '## Operations: metrics, dashboard, alerts';

/** The families the service itself defines: the dashboard shows each one at least once. */
const SERVICE_FAMILIES = [
  'http_requests_total',
  'http_request_duration_seconds',
  'ipn_acknowledgements_total',
  'ipn_acknowledgement_duration_seconds',
  'notification_lag_seconds',
  'checkouts_total',
  'refunds_total',
  'gateway_client_calls_total',
  'gateway_client_call_duration_seconds',
  'gateway_token_logins_total',
  'notification_inbox_backlog',
  'notification_inbox_oldest_seconds',
  'merchant_event_backlog',
  'merchant_event_oldest_seconds',
  'orders_needing_review',
  'unmatched_payments_open',
  'queue_jobs',
];

/** Words of PromQL that look like metric names but are not (functions are found by their "("). */
const PROMQL_WORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
  'unless',
  'offset',
  'inf',
  'nan',
]);

const HISTOGRAM_SUFFIX = /_(bucket|sum|count)$/;

/** Metric names in one PromQL expression, as written (histogram suffixes still on). */
function metricNamesIn(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, ' ') // label values, format strings
    .replace(/\{[^}]*\}/g, ' ') // label matchers
    .replace(/\[[^\]]*\]/g, ' ') // range selectors, $__rate_interval included
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ') // label lists
    .replace(/\boffset\s+-?[0-9a-z]+/gi, ' ');
  const names = new Set<string>();
  for (const match of stripped.matchAll(/(?<![\w.:$])[A-Za-z_:][\w:]*/g)) {
    const word = match[0];
    const after = stripped.slice(match.index + word.length).trimStart();
    if (after.startsWith('(') || PROMQL_WORDS.has(word.toLowerCase())) continue;
    names.add(word);
  }
  return [...names];
}

interface Panel {
  title?: string;
  type?: string;
  panels?: Panel[];
  targets?: { expr?: string; refId?: string }[];
}

/** Every PromQL expression of the dashboard, with the panel it belongs to. */
function dashboardExpressions(dashboard: { panels?: Panel[] }): { where: string; expr: string }[] {
  const found: { where: string; expr: string }[] = [];
  const visit = (panels: Panel[] = []) => {
    for (const panel of panels) {
      for (const target of panel.targets ?? []) {
        if (target.expr !== undefined) {
          found.push({ where: `panel "${panel.title}" ${target.refId}`, expr: target.expr });
        }
      }
      visit(panel.panels);
    }
  };
  visit(dashboard.panels);
  return found;
}

type AlertRule = Record<string, string>;

/**
 * The rules of the alert file, each as flat keys (alert, expr, for, labels.severity,
 * annotations.summary, annotations.runbook). No YAML library is installed, and the file is ours:
 * a rule starts at "- alert:", its keys are plain, quoted or block scalars (| or >), and labels and
 * annotations are one level of nesting below it.
 */
function readAlertRules(text: string): AlertRule[] {
  const lines = text.split('\n');
  const rules: AlertRule[] = [];
  let rule: AlertRule | null = null;
  let ruleIndent = -1;
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^\s*(#.*)?$/.test(line)) continue;
    const match = /^(\s*)(- )?([A-Za-z_][\w]*):(?:\s+(.*))?$/.exec(line);
    if (!match) continue;
    const [, spaces, dash, key, rawValue = ''] = match;
    const indent = spaces.length + (dash ? 2 : 0);
    if (dash && key === 'alert') {
      rule = {};
      rules.push(rule);
      ruleIndent = indent;
      section = '';
    } else if (!rule || indent < ruleIndent || (dash && indent === ruleIndent)) {
      rule = null;
      continue;
    }
    let value = rawValue.trim();
    if (/^[|>][-+]?$/.test(value)) {
      const block: string[] = [];
      while (i + 1 < lines.length) {
        const next = lines[i + 1];
        if (next.trim() !== '' && next.length - next.trimStart().length <= indent) break;
        block.push(next.trim());
        i++;
      }
      value = block.join(value.startsWith('|') ? '\n' : ' ').trim();
    } else if (value.startsWith("'")) {
      value = value.slice(1, -1).replace(/''/g, "'");
    } else if (value.startsWith('"')) {
      value = JSON.parse(value) as string;
    }
    if (indent === ruleIndent) {
      section = value === '' ? key : '';
      if (value !== '') rule[key] = value;
    } else if (section) {
      rule[`${section}.${key}`] = value;
    }
  }
  return rules;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Anchors of the headings in the operations page's metrics section (code blocks skipped). */
function operationsAnchors(page: string): Set<string> {
  const anchors = new Set<string>();
  let inside = false;
  let fenced = false;
  for (const line of page.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced) continue;
    if (line.startsWith('## ')) inside = line.trim() === OPERATIONS_SECTION;
    const heading = /^#{2,6}\s+(.+)$/.exec(line);
    if (inside && heading) anchors.add(anchorOf(heading[1]));
  }
  return anchors;
}

interface Family {
  name: string;
  type: string;
  metrics: unknown[];
}

describe('deploy/observability: the dashboard and alerts name metrics the apps serve', () => {
  let service: RunningService;
  /** Family name → type (HISTOGRAM, COUNTER...), from the api's and the worker's scrapes. */
  const served = new Map<string, string>();
  const scrapes: { text: string; families: Family[] }[] = [];

  beforeAll(async () => {
    service = await startService({ worker: true, env: { POLL_SCHEDULE_SECONDS: '600' } });
    // One checkout moves the labelled counters (checkouts, gateway calls, token login, HTTP), so
    // their families have a series; the others are still listed by their # HELP and # TYPE.
    await hostedCheckout(service);
    const address = service.workerApp!.getHttpServer().address() as { port: number };
    for (const baseUrl of [service.apiUrl, `http://127.0.0.1:${address.port}`]) {
      const answer = await request(baseUrl).get('/metrics');
      expect(answer.status).toBe(200);
      const families = parsePrometheusTextFormat(answer.text) as Family[];
      scrapes.push({ text: answer.text, families });
      for (const family of families) served.set(family.name, family.type);
      // prom-client prints # HELP and # TYPE for a registered metric even without a sample.
      for (const [, name, type] of answer.text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
        if (!served.has(name)) served.set(name, type.toUpperCase());
      }
    }
  }, 60_000);
  afterAll(async () => {
    await service?.close();
  });

  /** The family a name in an expression reads: a histogram's _bucket, _sum, _count are its own. */
  function familyOf(name: string): string | undefined {
    if (served.has(name)) return name;
    const base = name.replace(HISTOGRAM_SUFFIX, '');
    return base !== name && served.get(base) === 'HISTOGRAM' ? base : undefined;
  }

  it('scrapes list every family by # HELP and # TYPE, with or without samples', () => {
    for (const { text, families } of scrapes) {
      for (const family of families) {
        expect(text).toContain(`# HELP ${family.name} `);
        expect(text).toContain(`# TYPE ${family.name} ${family.type.toLowerCase()}`);
      }
    }
    // Both apps run in this process and share prom-client's registry: the worker's gauges too.
    for (const name of SERVICE_FAMILIES) expect([name, served.has(name)]).toEqual([name, true]);
    expect(served.get('http_request_duration_seconds')).toBe('HISTOGRAM');
  });

  it('reads the names out of PromQL, leaving functions, labels and keywords', () => {
    expect(
      metricNamesIn(
        'histogram_quantile(0.99, sum by (route, le) (rate(http_request_duration_seconds_bucket{route!="x"}[$__rate_interval])))',
      ),
    ).toEqual(['http_request_duration_seconds_bucket']);
    expect(
      metricNamesIn(
        'sum(increase(a_total{outcome="error"}[5m])) > 0 or count(b_total unless c_total offset 5m) > bool 0',
      ),
    ).toEqual(['a_total', 'b_total', 'c_total']);
    expect(metricNamesIn('max by (queue) (queue_jobs{state="failed"}) > 0')).toEqual([
      'queue_jobs',
    ]);
    expect(metricNamesIn('absent(notification_inbox_oldest_seconds)')).toEqual([
      'notification_inbox_oldest_seconds',
    ]);
  });

  it('the dashboard is valid JSON whose every expression reads served metrics', () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
      panels?: Panel[];
      schemaVersion?: number;
      templating?: { list?: { name: string; type: string }[] };
    };
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(dashboard.templating?.list).toContainEqual(
      expect.objectContaining({ name: 'datasource', type: 'datasource' }),
    );
    const expressions = dashboardExpressions(dashboard);
    expect(expressions.length).toBeGreaterThan(15);

    const used = new Set<string>();
    const unknown: string[] = [];
    for (const { where, expr } of expressions) {
      const names = metricNamesIn(expr);
      expect([where, names.length > 0]).toEqual([where, true]);
      for (const name of names) {
        const family = familyOf(name);
        if (family) used.add(family);
        else unknown.push(`${where}: ${name}`);
      }
    }
    expect(unknown).toEqual([]);
    expect(SERVICE_FAMILIES.filter((name) => !used.has(name))).toEqual([]);
  });

  it('every alert reads served metrics and has for, severity, summary and a runbook', () => {
    const rules = readAlertRules(readFileSync(ALERTS, 'utf8'));
    expect(rules.length).toBeGreaterThanOrEqual(8);
    const names = rules.map((rule) => rule.alert);
    expect(new Set(names).size).toBe(names.length);

    const unknown: string[] = [];
    for (const rule of rules) {
      expect([rule.alert, Object.keys(rule).sort()]).toEqual([
        rule.alert,
        [
          'alert',
          'annotations.runbook',
          'annotations.summary',
          'expr',
          'for',
          'labels.severity',
        ].sort(),
      ]);
      expect(rule.for).toMatch(/^\d+[smh]$/);
      expect(['critical', 'warning', 'info']).toContain(rule['labels.severity']);
      expect(rule['annotations.summary'].length).toBeGreaterThan(10);
      const names = metricNamesIn(rule.expr);
      expect([rule.alert, names.length > 0]).toEqual([rule.alert, true]);
      for (const name of names) if (!familyOf(name)) unknown.push(`${rule.alert}: ${name}`);
    }
    expect(unknown).toEqual([]);
  });

  it("each alert's runbook links to a heading of docs/operations.md's metrics section", () => {
    const rules = readAlertRules(readFileSync(ALERTS, 'utf8'));
    const anchors = operationsAnchors(readFileSync(OPERATIONS_PAGE, 'utf8'));
    expect(anchors.size).toBeGreaterThan(0);
    for (const rule of rules) {
      const link = /^docs\/operations\.md#([\w-]+)$/.exec(rule['annotations.runbook']);
      expect([rule.alert, link?.[1]]).toEqual([rule.alert, expect.any(String)]);
      expect([rule.alert, anchors.has(link![1])]).toEqual([rule.alert, true]);
    }
  });
});
