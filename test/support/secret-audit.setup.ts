import { ServerResponse } from 'node:http';
import { configuredSecrets, recordSecrets, Secret, secretKindsIn } from './secret-audit';
import { currentTestRun } from './test-servers';

/**
 * Runs in every e2e test file: each answer an HTTP server of this process sends (our apps, the
 * sandbox, test receivers) is checked for secrets as it goes out, and the file fails in afterAll
 * naming the route. Some answers carry a secret by design and may: the gateway's token answer
 * (the sandbox playing Pesapal), the one-time webhook secret of a new or rotated endpoint, and a
 * checkout's or attempt's status token (to the shop that made it, and from the example shop to
 * its customer's browser).
 */
const ALLOWED: readonly { method: string; path: RegExp; shape: string }[] = [
  { method: 'POST', path: /^\/pesapalv3\/api\/Auth\/RequestToken(\?|$)/i, shape: 'bearer token' },
  { method: 'POST', path: /^\/v1\/admin\/webhook-endpoints\/?(\?|$)/, shape: 'webhook secret' },
  {
    method: 'POST',
    path: /^\/v1\/admin\/webhook-endpoints\/[^/]+\/rotate-secret\/?(\?|$)/,
    shape: 'webhook secret',
  },
  { method: 'POST', path: /^\/v1\/checkouts(\/mobile-money)?\/?(\?|$)/, shape: 'status token' },
  { method: 'POST', path: /^\/v1\/orders\/[^/]+\/attempts\/?(\?|$)/, shape: 'status token' },
  // The example shop's waiting page hands the customer's browser its own order's token.
  { method: 'GET', path: /^\/orders\/[^/]+\/?(\?|$)/, shape: 'status token' },
  // A payment link's page sends its customer to the payment's waiting page, whose address (and
  // so the gateway's return to it) carries that payment's token.
  { method: 'POST', path: /^\/pay\/[^/]+\/?(\?|$)/, shape: 'status token' },
  { method: 'GET', path: /^\/pay\/[^/]+\/payments\/[^/?]+\/?(\?|$)/, shape: 'status token' },
  { method: 'GET', path: /^\/v1\/checkouts\/return\/?(\?|$)/, shape: 'status token' },
];

const findings: string[] = [];
const seen = new Map<string, Secret>();
let cachedFor = '';
let cached: Secret[] = [];

function currentSecrets(): Secret[] {
  const env = process.env;
  const signature = [
    env.PESAPAL_CONSUMER_SECRET,
    env.SANDBOX_MERCHANTS,
    env.SHOP_API_KEYS,
    env.ADMIN_API_KEYS,
    env.ORDER_WEBHOOK_SECRET,
    env.METRICS_TOKEN,
    env.ADMIN_AUTH_SECRET,
    env.OIDC_CLIENT_SECRET,
    ...Object.keys(env)
      .filter((name) => name.startsWith('PESAPAL_ACCOUNT_'))
      .map((name) => `${name}=${env[name] ?? ''}`),
  ].join('\u0000');
  if (signature !== cachedFor) {
    cachedFor = signature;
    cached = configuredSecrets(env);
    for (const secret of cached) seen.set(secret.value, secret);
  }
  return cached;
}

function inspect(response: ServerResponse, chunk: unknown): void {
  const text =
    typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : '';
  const headers = JSON.stringify(response.getHeaders());
  const method = response.req?.method ?? '';
  const url = response.req?.url ?? '';
  const allowed = ALLOWED.filter((a) => a.method === method && a.path.test(url)).map(
    (a) => a.shape,
  );
  const kinds = secretKindsIn(`${headers}\n${text}`, currentSecrets(), allowed);
  if (kinds.length > 0) findings.push(`${method} ${url.split('?')[0]}: ${kinds.join(', ')}`);
}

/**
 * Node's http module is shared by every test file of a jest worker: the patch is installed once,
 * and each file points it at its own inspector.
 */
const AUDIT = Symbol.for('pesapal.secretAudit');
type Audited = typeof ServerResponse.prototype & {
  [AUDIT]?: { inspect: (response: ServerResponse, chunk: unknown) => void };
};
const prototype = ServerResponse.prototype as Audited;
if (!prototype[AUDIT]) {
  const { write, end } = ServerResponse.prototype;
  prototype.write = function auditedWrite(
    this: ServerResponse,
    chunk: unknown,
    ...rest: unknown[]
  ) {
    prototype[AUDIT]?.inspect(this, chunk);
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof write;
  prototype.end = function auditedEnd(this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    if (chunk !== undefined && typeof chunk !== 'function') prototype[AUDIT]?.inspect(this, chunk);
    return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest);
  } as typeof end;
}
prototype[AUDIT] = { inspect };

afterAll(() => {
  currentSecrets();
  recordSecrets(currentTestRun().auditDir, [...seen.values()]);
  // Reported as this file's failure, naming each answer that carried a secret.
  expect(findings).toEqual([]);
});
