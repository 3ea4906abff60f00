import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { ownTestDatabase } from '../support/database';
import { RunningService, startService } from '../support/service';
import { SANDBOX_CREDENTIALS } from '../support/sandbox';
import { hostedBody, pushBody } from '../checkout/support';
import { checkKeepingFailures } from './keep-failures';
import { hostileBody, hostileHeaders, hostileQuery, hostileSegment } from './hostile';

/**
 * Generated requests against the real api on a database of the suite's own. `npm test` runs a
 * quick profile; `npm run fuzz` sets FUZZ_RUNS for the long one. Properties: never a 5xx, every
 * 4xx says what is wrong in our error shape (a 400 names each field and reason), a refused
 * request changes no row, and no answer holds a secret or a stack trace.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
/** Each request is a few milliseconds; the long profile's properties take minutes. */
const TIMEOUT_MS = Math.max(120_000, RUNS * 150);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
/**
 * The whole surface: the test command's budgeted run has a fixed seed (the same requests every
 * run), `npm run fuzz` a fresh one each time unless FUZZ_SEED says.
 */
const SURFACE_RUNS = RUNS * 10;
const SURFACE_SEED = SEED ?? (process.env.FUZZ_RUNS ? undefined : 20261125);

interface Answer {
  status: number;
  text: string;
  body: unknown;
}

interface FuzzedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

const STACK_TRACE = /\n\s+at .+:\d+:\d+|node_modules|\.ts:\d+/;

/** Field values a shop's bug or an attacker might send. */
const oddValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.string({ maxLength: 300 }),
  fc.string({ unit: 'grapheme', maxLength: 80 }),
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-1',
    '1e9',
    '10.005',
    'NaN',
    '9'.repeat(40),
    '\u0000',
    '<script>alert(1)</script>',
    "' OR 1=1 --",
    '../../etc/passwd',
    'x'.repeat(5000),
  ),
  fc.constantFrom(null, true, false, 0, -1, 1e308, Number.MAX_SAFE_INTEGER + 2, [], {}),
);

/** A valid body with some fields replaced, removed or added. */
function mutated(valid: () => Record<string, unknown>) {
  return fc
    .tuple(
      fc.dictionary(fc.string({ maxLength: 20 }), oddValue, { maxKeys: 3 }),
      fc.uniqueArray(fc.nat(12), { maxLength: 3 }),
      fc.boolean(),
    )
    .map(([extra, dropIndexes, replaceKnown]) => {
      const body = valid();
      const keys = Object.keys(body);
      for (const index of dropIndexes) delete body[keys[index % keys.length]];
      if (replaceKnown) {
        const [first] = Object.keys(extra);
        if (first !== undefined) body[keys[first.length % keys.length]] = extra[first];
        return body;
      }
      return { ...body, ...extra };
    });
}

const rawBody = fc.oneof(
  fc.string({ maxLength: 500 }),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.constantFrom('{', '{"amount":', '[]', 'null', '"text"', '{"__proto__":{"x":1}}'),
);

const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  '',
);

const pathSegment = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.constantFrom(
    '..',
    '%',
    '%00',
    'ORD-1',
    ' ',
    'a'.repeat(300),
    '00000000-0000-0000-0000-000000000000',
  ),
);

describe('fuzzing the api: generated requests never break it', () => {
  let service: RunningService;
  let dataSource: DataSource;
  let drop: (() => Promise<void>) | undefined;
  const secrets: string[] = [];
  /** Answers per endpoint and status, printed by the long profile. */
  const tally = new Map<string, Map<number, number>>();

  beforeAll(async () => {
    const own = await ownTestDatabase('fuzz');
    drop = own.drop;
    dataSource = own.dataSource;
    await dataSource.query(`
      CREATE TABLE fuzz_row_writes (n bigint NOT NULL);
      INSERT INTO fuzz_row_writes VALUES (0);
      CREATE FUNCTION fuzz_count_row_write() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN UPDATE fuzz_row_writes SET n = n + 1; RETURN NULL; END $$;`);
    for (const table of ['orders', 'refunds', 'webhook_endpoints', 'outbox_events']) {
      await dataSource.query(
        `CREATE TRIGGER fuzz_count AFTER INSERT OR UPDATE OR DELETE ON ${table}
           FOR EACH ROW EXECUTE FUNCTION fuzz_count_row_write()`,
      );
    }
    // Unlimited keys: every generated request reaches validation (the limits have their own e2e).
    service = await startService({
      env: { RATE_LIMIT_SHOP_PER_MINUTE: '0', RATE_LIMIT_ADMIN_PER_MINUTE: '0' },
    });
    secrets.push(service.shopKey, service.adminKey, SANDBOX_CREDENTIALS.consumerSecret);
  }, 60_000);

  afterAll(async () => {
    if (process.env.FUZZ_RUNS) {
      const lines = [...tally].map(
        ([route, statuses]) =>
          `${route.padEnd(48)} ${[...statuses]
            .sort(([a], [b]) => a - b)
            .map(([status, n]) => `${status}×${n}`)
            .join(' ')}`,
      );
      process.stdout.write(
        `\nfuzzed requests by route and status (no 5xx allowed):\n${lines.join('\n')}\n`,
      );
    }
    await service?.close();
    await drop?.();
  });

  /**
   * Rows written so far to the tables a refused request must not touch. Counted by triggers on
   * this throwaway database only (installed in beforeAll): one read per check, however many
   * rows the run has made (a digest of the tables' contents grew with them and made the long
   * profile take most of an hour).
   */
  async function checksum(): Promise<string> {
    const [row] = (await dataSource.query(`SELECT n FROM fuzz_row_writes`)) as { n: string }[];
    return row.n;
  }

  async function send(req: FuzzedRequest): Promise<Answer> {
    const response = await fetch(`${service.apiUrl}${req.path}`, {
      method: req.method,
      headers: req.headers,
      body: req.body,
      redirect: 'manual',
    });
    const text = await response.text();
    const route = `${req.method} ${req.path
      .replace(/\?.*$/, '')
      .replace(/^(\/v1\/(?:admin\/)?[a-z-]+)\/.*$/, '$1/…')
      .replace(/^\/admin\/.+$/, '/admin/…')}`;
    const statuses = tally.get(route) ?? new Map<number, number>();
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    tally.set(route, statuses);
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
    return { status: response.status, text, body };
  }

  function checkAnswer(req: FuzzedRequest, answer: Answer): void {
    const where = `${req.method} ${req.path.slice(0, 300)} → ${answer.status} ${answer.text.slice(0, 300)}`;
    if (answer.status >= 500) throw new Error(`5xx: ${where}`);
    for (const secret of secrets) {
      if (answer.text.includes(secret)) throw new Error(`a secret in the answer: ${where}`);
    }
    if (STACK_TRACE.test(answer.text)) throw new Error(`a stack trace in the answer: ${where}`);
    // Our error shape on the API's routes (the pages and the queue dashboard answer in theirs).
    if (
      answer.status >= 400 &&
      answer.status !== 429 &&
      req.method !== 'HEAD' && // an answer to HEAD has no body
      req.path.startsWith('/v1/')
    ) {
      const error = (
        answer.body as { error?: { code?: unknown; message?: unknown; errors?: unknown } }
      )?.error;
      if (typeof error?.code !== 'string' || typeof error.message !== 'string' || !error.message) {
        throw new Error(`a 4xx without a code and a reason: ${where}`);
      }
      if (error.code === 'validation_failed') {
        const problems = error.errors as { field?: unknown; reason?: unknown }[] | undefined;
        const named =
          Array.isArray(problems) &&
          problems.length > 0 &&
          problems.every(
            (p) =>
              typeof p.field === 'string' && p.field && typeof p.reason === 'string' && p.reason,
          );
        if (!named) throw new Error(`a 400 that names no field: ${where}`);
      }
    }
  }

  /** Kept failing cases of this property are replayed first (test/fuzz/keep-failures.ts). */
  async function property(
    name: string,
    requests: fc.Arbitrary<FuzzedRequest>,
    options: { runs: number; seed: number | undefined } = { runs: RUNS, seed: SEED },
  ): Promise<void> {
    await checkKeepingFailures(
      `endpoints: ${name}`,
      requests,
      async (req) => {
        const before = await checksum();
        const answer = await send(req);
        checkAnswer(req, answer);
        if (answer.status >= 400 && (await checksum()) !== before) {
          throw new Error(
            `a refused request changed rows: ${req.method} ${req.path} → ${answer.status}`,
          );
        }
      },
      options,
    );
  }

  const json = (auth: string) => ({
    authorization: `Bearer ${auth}`,
    'content-type': 'application/json',
  });

  it(
    'POST /v1/checkouts and /v1/checkouts/mobile-money with mutated bodies',
    async () => {
      await property(
        'checkouts',
        fc.oneof(
          mutated(() => hostedBody()).map((body) => ({
            method: 'POST',
            path: '/v1/checkouts',
            headers: json(service.shopKey),
            body: JSON.stringify(body),
          })),
          mutated(() => pushBody()).map((body) => ({
            method: 'POST',
            path: '/v1/checkouts/mobile-money',
            headers: json(service.shopKey),
            body: JSON.stringify(body),
          })),
        ),
      );
    },
    TIMEOUT_MS,
  );

  it(
    'shop and admin routes with raw bodies, odd content types, paths and keys',
    async () => {
      const route = fc.constantFrom<[string, string]>(
        ['POST', '/v1/checkouts'],
        ['GET', '/v1/orders/'],
        ['POST', '/v1/orders/{}/cancel'],
        ['POST', '/v1/admin/orders/{}/refunds'],
        ['GET', '/v1/admin/orders?q='],
        ['POST', '/v1/admin/webhook-endpoints'],
        ['PATCH', '/v1/admin/webhook-endpoints/{}'],
        ['GET', '/v1/checkouts/return?OrderTrackingId='],
      );
      await property(
        'shop and admin routes',
        fc
          .record({
            route,
            segment: pathSegment,
            body: rawBody,
            type: contentType,
            key: fc.constantFrom('shop', 'admin', 'none', 'odd'),
          })
          .map(({ route: [method, template], segment, body, type, key }) => {
            const encoded = encodeURIComponent(segment);
            const path = template.includes('{}')
              ? template.replace('{}', encoded || 'x')
              : template.endsWith('/') || template.endsWith('=')
                ? `${template}${encoded}`
                : template;
            const headers: Record<string, string> = {};
            if (type) headers['content-type'] = type;
            if (key === 'shop') headers.authorization = `Bearer ${service.shopKey}`;
            if (key === 'admin') headers.authorization = `Bearer ${service.adminKey}`;
            if (key === 'odd')
              headers.authorization = `Bearer ${segment.replace(/[^\x21-\x7e]/g, '') || 'x'}`;
            return { method, path, headers, body: method === 'GET' ? undefined : body };
          }),
      );
    },
    TIMEOUT_MS,
  );

  it(
    'admin refunds and webhook endpoints with mutated bodies',
    async () => {
      await property(
        'refunds and webhook endpoints',
        fc.oneof(
          mutated(() => ({
            amount: '100.00',
            reason: 'returned',
            confirm_partial: true,
          })).map((body) => ({
            method: 'POST',
            path: '/v1/admin/orders/NO-SUCH-ORDER/refunds',
            headers: json(service.adminKey),
            body: JSON.stringify(body),
          })),
          mutated(() => ({
            url: 'https://shop.example/hooks',
            event_types: ['order.completed'],
          })).map((body) => ({
            method: 'POST',
            path: '/v1/admin/webhook-endpoints',
            headers: json(service.adminKey),
            body: JSON.stringify(body),
          })),
        ),
      );
    },
    TIMEOUT_MS,
  );

  it(
    'the IPN route with generated queries, bodies and content types',
    async () => {
      const ipnPath = `/v1/ipn/${service.env.IPN_PATH_SECRET}`;
      await property(
        'ipn route',
        fc
          .record({
            method: fc.constantFrom('GET', 'POST'),
            query: fc.dictionary(
              fc.constantFrom(
                'OrderTrackingId',
                'OrderMerchantReference',
                'OrderNotificationType',
                'x',
              ),
              fc.string({ maxLength: 120 }),
            ),
            body: rawBody,
            type: contentType,
          })
          .map(({ method, query, body, type }) => ({
            method,
            path: `${ipnPath}?${new URLSearchParams(query).toString()}`,
            headers: (type ? { 'content-type': type } : {}) as Record<string, string>,
            body: method === 'POST' ? body : undefined,
          })),
      );
    },
    TIMEOUT_MS,
  );

  it(
    'every route, with hostile paths, queries, headers, bodies and encodings',
    async () => {
      const document = (await (await fetch(`${service.apiUrl}/docs-json`)).json()) as {
        paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
      };
      interface Operation {
        method: string;
        template: string;
        queryKeys: string[];
      }
      const operations: Operation[] = Object.entries(document.paths).flatMap(([template, ops]) =>
        Object.entries(ops).map(([method, op]) => ({
          method: method.toUpperCase(),
          template,
          queryKeys: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        })),
      );
      const ipn = `/v1/ipn/${service.env.IPN_PATH_SECRET}`;
      const fields = ['OrderTrackingId', 'OrderMerchantReference', 'OrderNotificationType'];
      operations.push(
        { method: 'GET', template: ipn, queryKeys: fields },
        { method: 'POST', template: ipn, queryKeys: fields },
        { method: 'GET', template: '/v1/ipn/{secret}', queryKeys: fields },
        { method: 'GET', template: '/admin', queryKeys: [] },
        { method: 'POST', template: '/admin/session', queryKeys: [] },
        { method: 'DELETE', template: '/admin/session', queryKeys: [] },
        { method: 'GET', template: '/admin/queues', queryKeys: [] },
        { method: 'GET', template: '/health/live', queryKeys: [] },
        { method: 'GET', template: '/metrics', queryKeys: [] },
        { method: 'GET', template: '/{anything}', queryKeys: [] },
      );
      expect(operations.length).toBeGreaterThan(30);
      const validBodies: Record<string, () => Record<string, unknown>> = {
        '/v1/checkouts': () => hostedBody(),
        '/v1/checkouts/mobile-money': () => pushBody(),
        '/v1/admin/orders/{reference}/refunds': () => ({
          amount: '1.00',
          reason: 'r',
        }),
        '/v1/admin/webhook-endpoints': () => ({ url: 'https://shop.example/hooks' }),
        '/v1/orders/{reference}/attempts': () => ({ method: 'hosted' }),
        '/admin/session': () => ({ key: service.adminKey }),
      };
      await property(
        'whole surface',
        fc
          .record({
            operation: fc.constantFrom(...operations),
            otherMethod: fc.option(
              fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'),
              { freq: 8 },
            ),
            segments: fc.array(hostileSegment, { minLength: 3, maxLength: 3 }),
            headers: hostileHeaders,
            key: fc.constantFrom('shop', 'admin', 'none', 'odd'),
          })
          .chain((parts) =>
            fc
              .record({
                query: fc.option(hostileQuery(parts.operation.queryKeys), { freq: 2 }),
                body: hostileBody(validBodies[parts.operation.template] ?? (() => ({}))),
              })
              .map((more) => ({ ...parts, ...more })),
          )
          .map(({ operation, otherMethod, segments, headers, key, query, body }) => {
            let index = 0;
            const path = operation.template.replace(/\{[^}]+\}/g, () => segments[index++ % 3]);
            const method = otherMethod ?? operation.method;
            const sent: Record<string, string> = { ...headers.extra };
            if (headers.contentType !== null) sent['content-type'] = headers.contentType;
            if (key === 'shop') sent.authorization = `Bearer ${service.shopKey}`;
            if (key === 'admin') sent.authorization = `Bearer ${service.adminKey}`;
            if (key === 'odd') sent.authorization = `Bearer ${segments[0].slice(0, 200)}`;
            return {
              method,
              path: query === null ? path : `${path}?${query}`,
              headers: sent,
              body: method === 'GET' || method === 'HEAD' || body === null ? undefined : body,
            };
          }),
        { runs: SURFACE_RUNS, seed: SURFACE_SEED },
      );
    },
    Math.max(TIMEOUT_MS, SURFACE_RUNS * 200),
  );
});
