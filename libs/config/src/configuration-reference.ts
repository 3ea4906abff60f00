import { VariableRead } from './env-parsers';
import { loadSandboxConfig } from './sandbox-config';
import { loadServiceConfig } from './service-config';
import {
  OtherVariable,
  SANDBOX_VARIABLES,
  SCRIPT_VARIABLES,
  SERVICE_VARIABLES,
  TRACING_VARIABLES,
  VariableNotes,
} from './variables';

/** One variable as the reference shows it. */
export interface VariableEntry {
  name: string;
  /** Development default, as text ('' when there is none). */
  fallback: string;
  /** What production does differently: 'required', another default, or null. */
  production: string | null;
  accepts: string;
  notes: VariableNotes;
}

function reads(load: (observe: (read: VariableRead) => void) => void): Map<string, VariableRead> {
  const found = new Map<string, VariableRead>();
  try {
    load((read) => {
      if (!found.has(read.name)) found.set(read.name, read);
    });
  } catch {
    // Production without its secrets refuses to start; every variable was read before that.
  }
  return found;
}

function accepts(read: VariableRead): string {
  switch (read.kind) {
    case 'integer':
      return read.max !== undefined && read.max < Number.MAX_SAFE_INTEGER
        ? `integer ${read.min}–${read.max}`
        : `integer ≥ ${read.min}`;
    case 'one of':
      return (read.allowed ?? []).map((value) => `\`${value}\``).join(', ');
    case 'url':
      return `URL (${(read.allowed ?? []).join(', ')})`;
    case 'boolean':
      return '`true`/`false`, `1`/`0`';
    case 'list':
      return 'comma-separated list';
    case 'duration':
      return 'duration (`500ms`, `5s`, `30m`, `2h`, `5d`)';
    case 'durations':
      return 'comma-separated durations';
    case 'redis nodes':
      return '`host:port` or `redis[s]://…`, comma-separated';
    default:
      return 'text';
  }
}

/**
 * Every variable the apps read, in the order their loaders read them, with its notes. Throws
 * when a loader reads one that has no notes, or notes name one no loader reads.
 */
export function configurationEntries(): {
  service: VariableEntry[];
  sandbox: VariableEntry[];
  scripts: VariableEntry[];
} {
  const development = reads((observe) => loadServiceConfig({}, observe));
  const production = reads((observe) => loadServiceConfig({ NODE_ENV: 'production' }, observe));
  const sandbox = reads((observe) => loadSandboxConfig({}, observe));
  const problems: string[] = [];
  const entry = (
    read: VariableRead,
    notes: Record<string, VariableNotes>,
    inProduction?: VariableRead,
  ): VariableEntry => {
    const note = notes[read.name];
    if (!note) problems.push(`${read.name} is read but has no notes in variables.ts`);
    const differs = inProduction && inProduction.fallback !== read.fallback;
    return {
      name: read.name,
      fallback: read.fallback ?? '',
      production: differs
        ? inProduction.fallback === undefined || inProduction.fallback === ''
          ? 'required'
          : inProduction.fallback
        : null,
      accepts: accepts(read),
      notes: note ?? { meaning: '' },
    };
  };
  const other = (name: string, notes: OtherVariable): VariableEntry => ({
    name,
    fallback: notes.fallback,
    production: null,
    accepts: 'text',
    notes,
  });
  for (const [names, read] of [
    [SERVICE_VARIABLES, development],
    [SANDBOX_VARIABLES, sandbox],
  ] as const) {
    for (const name of Object.keys(names)) {
      if (!read.has(name)) problems.push(`${name} has notes in variables.ts but is never read`);
    }
  }
  const result = {
    service: [
      ...[...development.values()].map((read) =>
        entry(read, SERVICE_VARIABLES, production.get(read.name)),
      ),
      ...Object.entries(TRACING_VARIABLES).map(([name, notes]) => other(name, notes)),
    ],
    sandbox: [...sandbox.values()].map((read) => entry(read, SANDBOX_VARIABLES)),
    scripts: Object.entries(SCRIPT_VARIABLES).map(([name, notes]) => other(name, notes)),
  };
  if (problems.length > 0) throw new Error(problems.join('; '));
  return result;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (text: string) => (text === '' ? '—' : `\`${text}\``);

function table(entries: VariableEntry[], withApps: boolean): string[] {
  return [
    '| variable | default | accepts | meaning |',
    '| --- | --- | --- | --- |',
    ...entries.map((e) => {
      const extras = [
        e.production
          ? `production: ${e.production === 'required' ? 'required' : code(e.production)}`
          : '',
        e.notes.secret ? 'secret' : '',
        withApps && e.notes.apps ? `used by the ${e.notes.apps.join(' and the ')}` : '',
      ].filter(Boolean);
      const meaning =
        extras.length > 0 ? `${e.notes.meaning} (${extras.join('; ')})` : e.notes.meaning;
      return `| \`${e.name}\` | ${code(e.fallback)} | ${cell(e.accepts)} | ${cell(meaning)} |`;
    }),
  ];
}

/** docs/configuration.md, made from the loaders and the notes (`npm run docs:config`). */
export function renderConfigurationReference(): string {
  const { service, sandbox, scripts } = configurationEntries();
  return [
    '# Configuration',
    '',
    '<!-- Made by `npm run docs:config` from libs/config/src (the loaders and variables.ts); a test',
    'fails when it differs from them. Edit those, not this page. -->',
    '',
    'Everything is read from the environment and validated at start: a missing or malformed variable',
    'stops the process with **one line naming the variable** and what is wrong, e.g.',
    '`Invalid configuration: PORT must be an integer between 0 and 65535 (got "abc")`. Outside',
    'production every variable has a working default pointing at the sandbox; `production: required`',
    'marks those production insists on. `.env.example` lists the same variables with comments, and',
    "the Kubernetes ConfigMap and Secret name each of the api's and the worker's, the secrets in the",
    'Secret (the apps do not load `.env` files themselves).',
    '',
    '## api and worker',
    '',
    'Both read one configuration (`libs/config/src/service-config.ts`); a variable one of them does',
    'not use says which does.',
    '',
    ...table(service, true),
    '',
    '## sandbox',
    '',
    'The gateway stand-in (`libs/config/src/sandbox-config.ts`).',
    '',
    ...table(sandbox, false),
    '',
    '## `npm start` and the tests',
    '',
    ...table(scripts, true),
    '',
  ].join('\n');
}
