import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SANDBOX_DEFAULTS } from '@app/config';

/**
 * The suite-wide secret audit: no answer of our apps and no log line of any process of the run
 * carries the consumer secret, a bearer token, an API key or a webhook secret. Responses are
 * checked as they are sent (test/support/secret-audit.setup.ts), log lines after the whole run
 * (global teardown), against the secrets every test file saw configured and two shapes that are
 * secrets wherever they appear.
 */
export interface Secret {
  kind: string;
  value: string;
}

/** Shapes that are a secret whatever their value: the gateway's bearer tokens, webhook secrets. */
export const SECRET_SHAPES: readonly { kind: string; pattern: RegExp }[] = [
  { kind: 'bearer token', pattern: /eyJ[\w-]{10,}\.eyJ[\w-]{10,}\.[\w-]{10,}/ },
  { kind: 'webhook secret', pattern: /whsec_[A-Za-z0-9+/]{16,}/ },
  { kind: 'status token', pattern: /pst_[A-Za-z0-9_-]{43}/ },
];

/** Shorter configured values would match ordinary text by chance (tests use some on purpose). */
const SHORTEST_AUDITED = 10;

/** The secrets an app started now would be configured with (process.env, then defaults). */
export function configuredSecrets(env: NodeJS.ProcessEnv = process.env): Secret[] {
  const keysOf = (list: string | undefined) =>
    (list ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .map((entry) => (entry.includes(':') ? entry.slice(entry.indexOf(':') + 1) : entry));
  const secrets: Secret[] = [
    { kind: 'consumer secret', value: SANDBOX_DEFAULTS.consumerSecret },
    { kind: 'consumer secret', value: env.PESAPAL_CONSUMER_SECRET ?? '' },
    ...keysOf(env.SANDBOX_MERCHANTS).map((value) => ({ kind: 'consumer secret', value })),
    ...keysOf(env.SHOP_API_KEYS).map((value) => ({ kind: 'shop API key', value })),
    ...keysOf(env.ADMIN_API_KEYS).map((value) => ({ kind: 'admin API key', value })),
    ...keysOf(env.ORDER_WEBHOOK_SECRET).map((value) => ({ kind: 'webhook secret', value })),
    { kind: 'metrics token', value: env.METRICS_TOKEN ?? '' },
    { kind: 'admin auth secret', value: env.ADMIN_AUTH_SECRET ?? '' },
    { kind: 'identity provider client secret', value: env.OIDC_CLIENT_SECRET ?? '' },
    // Each merchant account's own secret (PESAPAL_ACCOUNTS).
    ...Object.entries(env)
      .filter(([name]) => /^PESAPAL_ACCOUNT_[A-Z0-9_]+_CONSUMER_SECRET$/.test(name))
      .map(([, value]) => ({ kind: 'consumer secret', value: value ?? '' })),
  ];
  return secrets.filter((secret) => secret.value.trim().length >= SHORTEST_AUDITED);
}

/** The kinds of secret found in `text` (each once), never the secrets themselves. */
export function secretKindsIn(
  text: string,
  known: readonly Secret[],
  allowShapes: readonly string[] = [],
): string[] {
  const found = new Set<string>();
  for (const { kind, pattern } of SECRET_SHAPES) {
    if (!allowShapes.includes(kind) && pattern.test(text)) found.add(kind);
  }
  for (const { kind, value } of known) {
    if (text.includes(value)) found.add(kind);
  }
  return [...found];
}

const SECRETS_FILE = (pid: number) => `secrets-${pid}.json`;
const LOG_FILE_PATTERN = /\.ndjson$/;

/** Records the secrets a test file saw, for the log scan at the end of the run. */
export function recordSecrets(auditDir: string, secrets: readonly Secret[]): void {
  appendFileSync(join(auditDir, SECRETS_FILE(process.pid)), `${JSON.stringify(secrets)}\n`);
}

/** Every log line of the run that carries a secret, as "file:line: kinds". */
export function scanLogs(auditDir: string): { lines: number; findings: string[] } {
  const names = readdirSync(auditDir);
  const known = new Map<string, Secret>();
  for (const name of names.filter((n) => n.startsWith('secrets-'))) {
    for (const line of readFileSync(join(auditDir, name), 'utf8').split('\n')) {
      if (!line) continue;
      for (const secret of JSON.parse(line) as Secret[]) known.set(secret.value, secret);
    }
  }
  for (const secret of configuredSecrets({})) known.set(secret.value, secret);
  const secrets = [...known.values()];
  const findings: string[] = [];
  let lines = 0;
  for (const name of names.filter((n) => LOG_FILE_PATTERN.test(n))) {
    readFileSync(join(auditDir, name), 'utf8')
      .split('\n')
      .forEach((line, index) => {
        if (!line) return;
        lines += 1;
        const kinds = secretKindsIn(line, secrets);
        if (kinds.length > 0) findings.push(`${name}:${index + 1}: ${kinds.join(', ')}`);
      });
  }
  return { lines, findings };
}
