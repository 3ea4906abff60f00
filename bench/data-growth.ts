/**
 * A year of data: every call's median on a small database and again after growing it to
 * BENCH_DATA_ORDERS orders, side by side, with the idle cost of the apps and PostgreSQL, and the
 * bytes each order costs with and without retention.
 *
 *   npm run bench:data                              # 10,000,000 orders (about 40 GB, an hour or more)
 *   BENCH_DATA_ORDERS=1000000 npm run bench:data    # a quicker run
 *
 * 1. Starts the sandbox, the api and the worker (the built apps; retention off while growing) on
 *    a fresh database, and makes orders through the API as a shop would: hosted checkouts paid or
 *    declined on the hosted page, pushes paid or declined at the phone, refunds; the worker
 *    verifies each notification. Measures every call (median of BENCH_DATA_CALLS) and the idle CPU.
 * 2. Grows the database by copying those final orders, with their timelines, attempts, inbox rows,
 *    merchant events and refunds, each copy another customer's order with its own identifiers,
 *    spread over the year before the poll horizon (72 h), each as the worker would have left it by
 *    now: unpaid copies expired, accepted refunds followed up to reversed. Then VACUUM ANALYZE and a checkpoint, as a database that
 *    has lived would have had.
 * 3. Measures the same calls and the idle CPU again; then runs retention through the worker's job
 *    with the default settings until nothing is left to remove (or BENCH_DATA_RETENTION_MINUTES)
 *    and reports the bytes per order before and after.
 *
 * BENCH_DATA_KEEP=1 keeps the grown database (to look at plans); BENCH_DATA_REBUILD_INDEXES=0
 * keeps the indexes while copying. Writes bench/results/data-growth.json beside what it prints. Needs PostgreSQL at
 * 127.0.0.1:5432 (or BENCH_POSTGRES_URL) and Redis (BENCH_REDIS_URL or REDIS_URL); drops its
 * database and keys once its processes have exited.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Queue } from 'bullmq';
import { Client } from 'pg';
import { loadServiceConfig } from '@app/config';
import { jobOptions, queueConnectionFor, queueKeyPrefix, QUEUES } from '@app/queues';
import { encodeCursor } from '../libs/checkout/src/http/page-cursor';
import { cpuMs, groupCpuMs } from './counters';
import { BenchStores, call, freePorts, MeasuredProcesses, sleep, waitUntil } from './processes';
import { writeResults } from './results';

const TARGET = Number(process.env.BENCH_DATA_ORDERS ?? 10_000_000);
const CALLS = Number(process.env.BENCH_DATA_CALLS ?? 15);
const IDLE_SECONDS = Number(process.env.BENCH_DATA_IDLE_SECONDS ?? 60);
const BATCH = Number(process.env.BENCH_DATA_BATCH ?? 100_000);
const RETENTION_MINUTES = Number(process.env.BENCH_DATA_RETENTION_MINUTES ?? 30);
const KEY = randomBytes(8).toString('hex');
const SHOP = { authorization: `Bearer shop_${KEY}` };
const ADMIN = { authorization: `Bearer admin_${KEY}` };
const processes = new MeasuredProcesses();
const say = (line = '') => process.stdout.write(`${line}\n`);

async function json(url: string, method = 'GET', headers = SHOP, body?: unknown) {
  const answer = await call(url, method, { headers, body });
  if (answer.status >= 400) throw new Error(`${method} ${url}: ${answer.status} ${answer.body}`);
  return JSON.parse(answer.body) as Record<string, unknown>;
}

/** The median of CALLS timed calls (after one untimed), in ms; a non-2xx answer is an error. */
async function median(url: string, headers: Record<string, string>, make?: () => unknown) {
  const once = async () => {
    const body = make?.();
    const t = performance.now();
    const answer = await call(url, body === undefined ? 'GET' : 'POST', { headers, body });
    const took = performance.now() - t;
    if (answer.status >= 300) throw new Error(`${url}: ${answer.status} ${answer.body}`);
    return took;
  };
  await once();
  const times: number[] = [];
  for (let i = 0; i < CALLS; i += 1) times.push(await once());
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

interface Probe {
  name: string;
  ms: number;
}

async function main(): Promise<void> {
  const stores = await BenchStores.create('data');
  const db = new Client({ connectionString: stores.databaseUrl });
  const [sandboxPort, apiPort, workerPort] = await freePorts(3);
  const gateway = `http://127.0.0.1:${sandboxPort}/pesapalv3/api`;
  const api = `http://127.0.0.1:${apiPort}`;
  const worker = `http://127.0.0.1:${workerPort}`;
  const env: Record<string, string> = {
    NODE_ENV: 'development',
    PORT: String(apiPort),
    WORKER_PORT: String(workerPort),
    DATABASE_URL: stores.databaseUrl,
    REDIS_URL: stores.redisUrl,
    QUEUE_PREFIX: stores.queuePrefix,
    PESAPAL_BASE_URL: gateway,
    PUBLIC_BASE_URL: api,
    SHOP_API_KEYS: `bench:shop_${KEY}`,
    ADMIN_API_KEYS: `bench-admin:admin_${KEY}`,
    IPN_PATH_SECRET: 'bench-ipn-secret',
    LOG_LEVEL: 'warn',
    // While the database grows, retention stays off: the copies are a year old.
    RETENTION_NOTIFICATIONS_DAYS: '0',
    RETENTION_MERCHANT_EVENTS_DAYS: '0',
    RETENTION_IDEMPOTENCY_KEYS_DAYS: '0',
  };
  const results: Record<string, unknown> = { orders_target: TARGET, calls_per_median: CALLS };
  try {
    processes.startSandbox(sandboxPort);
    const apiProcess = processes.startApp('api', env);
    let workerProcess = processes.startApp('worker', env);
    await waitUntil(
      'the api',
      async () => (await call(`${api}/health/ready`, 'GET')).status === 200,
    );
    await waitUntil(
      'the worker',
      async () => (await call(`${worker}/health/live`, 'GET')).status === 200,
    );
    await db.connect();

    say('making orders through the API as a shop would…');
    const made = await makeOrders(api);
    await waitUntil(
      'every order final',
      async () => {
        const { rows } = await db.query(
          `SELECT count(*)::int AS open FROM orders WHERE status = 'pending'
            AND merchant_reference NOT LIKE '%-open'`,
        );
        return rows[0].open === 0;
      },
      120_000,
    );
    say(`  ${made.references.length} orders (${made.refunds} refunded)`);

    const probes = await probesFor(db, api, made);
    const small = await measure(probes, worker);
    const smallIdle = await idleCpu(apiProcess.pid!, workerProcess.pid!);
    const smallOrders = await orderCount(db);

    say(`growing the database to ${TARGET.toLocaleString('en')} orders…`);
    const grown = await grow(db, TARGET);
    say(`  ${grown.orders.toLocaleString('en')} orders in ${grown.seconds.toFixed(0)} s`);
    say('VACUUM ANALYZE and a checkpoint…');
    await db.query('VACUUM ANALYZE');
    await db.query('CHECKPOINT');
    say('summing the history into the overview’s hourly totals…');
    const summingSeconds = await sumHistory(db);
    say(`  in ${summingSeconds.toFixed(0)} s`);

    const large = await measure(await probesFor(db, api, made), worker);
    const largeIdle = await idleCpu(apiProcess.pid!, workerProcess.pid!);
    const bytesBefore = await storage(db);

    say('retention with the default settings, through the worker’s job…');
    workerProcess.kill('SIGTERM');
    await new Promise((resolve) => workerProcess.once('exit', resolve));
    const retentionEnv: Record<string, string> = { ...env, RETENTION_BATCH_SIZE: '10000' };
    for (const name of Object.keys(retentionEnv)) {
      if (/^RETENTION_.*_DAYS$/.test(name)) delete retentionEnv[name];
    }
    workerProcess = processes.startApp('worker', retentionEnv);
    await waitUntil(
      'the worker',
      async () => (await call(`${worker}/health/live`, 'GET')).status === 200,
    );
    const pruned = await pruneAll(retentionEnv);
    await db.query(
      'VACUUM FULL ipn_notifications, outbox_events, webhook_messages, webhook_deliveries, idempotency_keys',
    );
    await db.query('ANALYZE');
    const bytesAfter = await storage(db);
    const afterRetention = await measure(await probesFor(db, api, made), worker);

    const rows = small.map((probe, i) => {
      const big = large[i].ms;
      const allowed = Math.max(2 * probe.ms, 25);
      return {
        call: probe.name,
        small_ms: round(probe.ms),
        large_ms: round(big),
        ratio: round(big / probe.ms),
        after_retention_ms: round(afterRetention[i].ms),
        // The overview's windows are empty on the small database and full on the grown one: its
        // target is an absolute bound (the console's), not a ratio.
        within_target: probe.name.startsWith(OVERVIEW) ? big < OVERVIEW_TARGET_MS : big <= allowed,
      };
    });
    Object.assign(results, {
      orders: { small: smallOrders, large: grown.orders },
      growth_seconds: round(grown.seconds),
      overview_summing_seconds: round(summingSeconds),
      overview_target_ms: OVERVIEW_TARGET_MS,
      calls: rows,
      idle_cpu_ms_per_minute: { small: smallIdle, large: largeIdle },
      bytes_per_order: {
        without_retention: Math.round(bytesBefore.total / grown.orders),
        with_retention: Math.round(bytesAfter.total / grown.orders),
        record_only: Math.round(bytesAfter.record / grown.orders),
      },
      retention: pruned,
      tables_bytes: { before: bytesBefore.tables, after: bytesAfter.tables },
    });
    report(results, rows);
    say(`results: ${writeResults('data-growth', results)}`);
  } finally {
    await processes.stop();
    await db.end().catch(() => undefined);
    await stores.remove(process.env.BENCH_DATA_KEEP === '1');
  }
}

const round = (n: number) => Math.round(n * 100) / 100;

interface Made {
  references: string[];
  emails: string[];
  refunds: number;
}

/** Orders as a shop makes them: paid, declined and cancelled, hosted and push, some refunded. */
async function makeOrders(api: string): Promise<Made> {
  const made: Made = { references: [], emails: [], refunds: 0 };
  const stamp = Date.now().toString(36);
  const pay = async (created: Record<string, unknown>, action: string) => {
    const page = new URL(String(created.redirect_url));
    const answer = await fetch(new URL('/pesapaliframe/PesapalIframe3/Pay', page.origin), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ OrderTrackingId: String(created.order_tracking_id), action }),
      redirect: 'manual',
    });
    const back = answer.headers.get('location');
    if (back) await fetch(back, { redirect: 'manual' });
  };
  for (let i = 0; i < 40; i += 1) {
    const reference = `bench-${stamp}-${i}`;
    const email = `customer.${stamp}.${i}@example.com`;
    const customer = {
      email,
      phone: `+2547${String(10000000 + i).slice(-8)}`,
      first_name: 'Amina',
    };
    if (i % 4 === 3) {
      // Push: paid by the phone (last digit 8) or declined (last digit 1).
      const phone = i % 8 === 3 ? '+254712345671' : '+254712345678';
      await json(`${api}/v1/checkouts/mobile-money`, 'POST', SHOP, {
        amount: '250.00',
        currency: 'KES',
        description: 'Mobile top-up',
        reference,
        customer,
        phone,
        network: 'MPESA',
      });
    } else {
      const created = await json(`${api}/v1/checkouts`, 'POST', SHOP, {
        amount: `${1000 + i * 10}.00`,
        currency: i % 5 === 0 ? 'UGX' : 'KES',
        description: 'Two bags of coffee',
        reference,
        customer,
        return_url: 'https://shop.example/thank-you',
      });
      await pay(created, i % 6 === 1 ? 'fail' : 'card');
    }
    made.references.push(reference);
    made.emails.push(email);
  }
  // Refund some of the paid ones once they are paid.
  for (const reference of made.references.slice(0, 12)) {
    const order = await waitForFinal(api, reference);
    if (order.status !== 'completed') continue;
    const answer = await call(`${api}/v1/admin/orders/${reference}/refunds`, 'POST', {
      headers: ADMIN,
      body: { amount: order.amount, reason: 'returned' },
    });
    if (answer.status === 201) made.refunds += 1;
  }
  return made;
}

async function waitForFinal(api: string, reference: string): Promise<Record<string, string>> {
  let order: Record<string, string> = {};
  await waitUntil(`order ${reference} final`, async () => {
    order = (await json(`${api}/v1/orders/${reference}`)) as Record<string, string>;
    return order.status !== 'pending';
  });
  return order;
}

/** The calls measured, on both databases: the shop's, the admin's, and the worker's scrape. */
async function probesFor(db: Client, api: string, made: Made) {
  const { rows: deep } = await db.query(
    `SELECT id, created_at FROM orders ORDER BY created_at DESC, id DESC OFFSET 10000 LIMIT 1`,
  );
  const { rows: newest } = await db.query(
    `SELECT id, created_at FROM orders ORDER BY created_at DESC, id DESC LIMIT 1`,
  );
  const position = (deep[0] ?? newest[0]) as { id: string; created_at: Date };
  const cursor = encodeCursor('admin-orders', {}, { at: position.created_at, id: position.id });
  const yesterday = new Date(Date.now() - 86_400_000).toISOString();
  const reference = made.references[1];
  let sequence = 0;
  const stamp = randomBytes(3).toString('hex');
  return [
    {
      name: 'POST /v1/checkouts',
      url: `${api}/v1/checkouts`,
      headers: SHOP,
      make: () => ({
        amount: '1500.00',
        currency: 'KES',
        description: 'bench',
        reference: `probe-${stamp}-${(sequence += 1)}`,
        customer: { email: 'probe@example.com' },
      }),
    },
    { name: 'GET /v1/orders/:reference', url: `${api}/v1/orders/${reference}`, headers: SHOP },
    { name: 'admin orders ?limit=50', url: `${api}/v1/admin/orders?limit=50`, headers: ADMIN },
    {
      name: 'admin orders ?status=completed',
      url: `${api}/v1/admin/orders?status=completed`,
      headers: ADMIN,
    },
    {
      name: 'admin orders ?currency=UGX',
      url: `${api}/v1/admin/orders?currency=UGX`,
      headers: ADMIN,
    },
    {
      name: 'admin orders ?status=failed&currency=UGX',
      url: `${api}/v1/admin/orders?status=failed&currency=UGX`,
      headers: ADMIN,
    },
    {
      name: 'admin orders ?q=<customer email>',
      url: `${api}/v1/admin/orders?q=${encodeURIComponent(made.emails[2].toUpperCase())}`,
      headers: ADMIN,
    },
    {
      name: 'admin orders ?q=<reference>',
      url: `${api}/v1/admin/orders?q=${reference}`,
      headers: ADMIN,
    },
    {
      name: 'admin orders ?q=<phone>',
      url: `${api}/v1/admin/orders?q=${encodeURIComponent('0700 000 003')}`,
      headers: ADMIN,
    },
    {
      name: 'admin orders ?cursor=<10,000 rows in>',
      url: `${api}/v1/admin/orders?cursor=${cursor}`,
      headers: ADMIN,
    },
    {
      name: 'admin orders ?from=<yesterday>',
      url: `${api}/v1/admin/orders?from=${yesterday}`,
      headers: ADMIN,
    },
    { name: 'admin orders/stuck', url: `${api}/v1/admin/orders/stuck`, headers: ADMIN },
    { name: 'admin orders/:reference', url: `${api}/v1/admin/orders/${reference}`, headers: ADMIN },
    { name: 'admin refunds', url: `${api}/v1/admin/refunds`, headers: ADMIN },
    {
      name: 'admin refunds ?status=accepted&currency=KES',
      url: `${api}/v1/admin/refunds?status=accepted&currency=KES`,
      headers: ADMIN,
    },
    {
      name: 'admin events ?type=order.completed',
      url: `${api}/v1/admin/events?type=order.completed`,
      headers: ADMIN,
    },
    {
      name: 'admin events ?order=<reference>',
      url: `${api}/v1/admin/events?order=${reference}`,
      headers: ADMIN,
    },
    { name: 'admin events', url: `${api}/v1/admin/events`, headers: ADMIN },
    {
      name: 'admin events ?delivered=false',
      url: `${api}/v1/admin/events?delivered=false`,
      headers: ADMIN,
    },
    { name: 'admin notifications', url: `${api}/v1/admin/notifications`, headers: ADMIN },
    {
      name: 'admin notifications ?status=failed',
      url: `${api}/v1/admin/notifications?status=failed`,
      headers: ADMIN,
    },
    ...(['hour', 'day', 'month'] as const).map((window) => ({
      name: `${OVERVIEW} ?window=${window}`,
      url: `${api}/v1/admin/overview?window=${window}`,
      headers: ADMIN,
    })),
  ];
}

const OVERVIEW = 'admin overview';
/** The console's overview must answer within this on the large database (issue: the console). */
const OVERVIEW_TARGET_MS = 100;

/**
 * Sums the grown history into the overview's hourly totals as a migrated database would be: the
 * totals emptied, the worker's minute job catching up from the oldest order. How long it took.
 */
async function sumHistory(db: Client): Promise<number> {
  const started = performance.now();
  await db.query('DELETE FROM activity_rollup');
  await db.query('DELETE FROM activity_totals');
  await waitUntil(
    "the worker's summing of a year of hours",
    async () => {
      const { rows } = await db.query(
        `SELECT rolled_through >= date_trunc('hour', now() - interval '10 minutes', 'UTC') AS done
           FROM activity_rollup`,
      );
      return rows[0]?.done === true;
    },
    3_600_000,
  );
  return (performance.now() - started) / 1000;
}

async function measure(
  probes: Awaited<ReturnType<typeof probesFor>>,
  worker: string,
): Promise<Probe[]> {
  const measured: Probe[] = [];
  for (const probe of probes) {
    measured.push({ name: probe.name, ms: await median(probe.url, probe.headers, probe.make) });
  }
  measured.push({ name: 'worker GET /metrics', ms: await median(`${worker}/metrics`, {}) });
  return measured;
}

/** CPU ms per minute of the api, the worker and PostgreSQL while nothing is asked of them. */
async function idleCpu(apiPid: number, workerPid: number) {
  const before = { api: cpuMs(apiPid), worker: cpuMs(workerPid), postgres: groupCpuMs('postgres') };
  await sleep(IDLE_SECONDS * 1000);
  const perMinute = (a: number, b: number) => round(((b - a) * 60) / IDLE_SECONDS);
  return {
    api: perMinute(before.api, cpuMs(apiPid)),
    worker: perMinute(before.worker, cpuMs(workerPid)),
    postgres: perMinute(before.postgres, groupCpuMs('postgres')),
  };
}

async function orderCount(db: Client): Promise<number> {
  const { rows } = await db.query('SELECT count(*)::int AS n FROM orders');
  return rows[0].n as number;
}

const RECORD_TABLES = [
  'orders',
  'order_events',
  'payment_attempts',
  'refunds',
  'subscription_charges',
  'reconciliation_reports',
];

/** Bytes on disk per table (with indexes and TOAST), the merchant's record apart. */
async function storage(db: Client) {
  const { rows } = await db.query(
    `SELECT relname AS table, pg_total_relation_size(c.oid)::float8 AS bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY relname`,
  );
  const tables = Object.fromEntries(rows.map((r) => [r.table as string, Number(r.bytes)]));
  const total = Object.values(tables).reduce((sum, bytes) => sum + bytes, 0);
  const record = RECORD_TABLES.reduce((sum, table) => sum + (tables[table] ?? 0), 0);
  return { tables, total, record };
}

/** Every column of `table` but its id, as the copy writes it. */
async function columnsOf(db: Client, table: string) {
  const { rows } = await db.query(
    `SELECT column_name AS name, data_type AS type FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name = $1 AND column_name <> 'id'
        AND is_generated = 'NEVER' ORDER BY ordinal_position`,
    [table],
  );
  return rows as { name: string; type: string }[];
}

/** Identifiers that must differ per copy: the original's, with the copy's number appended. */
const IDENTIFIERS = new Set([
  'merchant_reference',
  'order_tracking_id',
  'push_merchant_reference',
  'gateway_reference',
  'confirmation_code',
  'account_number',
]);

/**
 * Copies the final orders (and their rows) until the database holds `target` orders, BATCH at a
 * time; copy g is dated g/target of a year ago (the newest first) and is another customer's.
 */
async function grow(db: Client, target: number): Promise<{ orders: number; seconds: number }> {
  const started = performance.now();
  await db.query('SET synchronous_commit = off');
  await db.query(
    `CREATE TEMP TABLE templates AS
       SELECT id, created_at, row_number() OVER (ORDER BY created_at) - 1 AS n
         FROM orders WHERE status <> 'pending'`,
  );
  const { rows: t } = await db.query('SELECT count(*)::int AS n FROM templates');
  const templates = t[0].n as number;
  const have = await orderCount(db);
  const expression = (table: string, column: { name: string; type: string }) => {
    if (column.name === 'order_id') return 'm.new_id';
    if (table === 'orders' && column.name === 'next_poll_at') return 'NULL';
    // A year on, what the worker would have made of each copy: unpaid ones expired at the poll
    // horizon, refunds the gateway accepted followed up to reversed (and their orders with them).
    if (table === 'orders' && column.name === 'status') {
      return `CASE WHEN src.status IN ('pending', 'failed') THEN 'expired'
                   WHEN EXISTS (SELECT 1 FROM tpl_refunds r WHERE r.order_id = src.id
                                   AND r.status IN ('requested', 'accepted', 'unknown'))
                   THEN 'reversed' ELSE src.status END`;
    }
    if (table === 'orders' && column.name === 'reversed_at') {
      return `CASE WHEN EXISTS (SELECT 1 FROM tpl_refunds r WHERE r.order_id = src.id
                                   AND r.status IN ('requested', 'accepted', 'unknown'))
                   THEN m.created_at + interval '2 days' ELSE src.reversed_at + m.shift END`;
    }
    if (table === 'refunds' && column.name === 'status') {
      return `CASE WHEN src.status IN ('requested', 'accepted', 'unknown') THEN 'reversed' ELSE src.status END`;
    }
    if (table === 'refunds' && column.name === 'reversed_at') {
      return `CASE WHEN src.status IN ('requested', 'accepted', 'unknown') THEN m.created_at + interval '2 days' ELSE src.reversed_at + m.shift END`;
    }
    if (table === 'orders' && column.name === 'expired_at') {
      return `CASE WHEN src.status IN ('pending', 'failed') THEN m.created_at + interval '72 hours' ELSE src.expired_at + m.shift END`;
    }
    if (table === 'orders' && column.name === 'customer_email') {
      return `'customer' || m.g || '@example.com'`;
    }
    if (table === 'orders' && (column.name === 'customer_phone' || column.name === 'msisdn')) {
      return `CASE WHEN src.${column.name} IS NULL THEN NULL ELSE '+2547' || lpad((m.g % 100000000)::text, 8, '0') END`;
    }
    if (IDENTIFIERS.has(column.name)) {
      return `CASE WHEN src.${column.name} IS NULL THEN NULL ELSE left(src.${column.name}, 36) || '~' || m.g END`;
    }
    if (column.type === 'timestamp with time zone') return `src.${column.name} + m.shift`;
    return `src.${column.name}`;
  };
  const copies: { table: string; sql: string }[] = [];
  for (const table of [
    'orders',
    'order_events',
    'payment_attempts',
    'ipn_notifications',
    'outbox_events',
    'refunds',
    'subscription_charges',
  ]) {
    const columns = await columnsOf(db, table);
    const names = (table === 'orders' ? [{ name: 'id', type: 'uuid' }, ...columns] : columns)
      .map((c) => `"${c.name}"`)
      .join(', ');
    const values = (
      table === 'orders'
        ? ['m.new_id', ...columns.map((c) => expression(table, c))]
        : columns.map((c) => expression(table, c))
    ).join(', ');
    const key = table === 'orders' ? 'id' : 'order_id';
    // The templates' own rows, read once: the copies never scan the growing tables.
    await db.query(
      `CREATE TEMP TABLE tpl_${table} AS SELECT * FROM ${table} WHERE ${key} IN (SELECT id FROM templates)`,
    );
    await db.query(`CREATE INDEX ON tpl_${table} (${key})`);
    copies.push({
      table,
      sql: `INSERT INTO ${table} (${names}) SELECT ${values} FROM tpl_${table} src JOIN grow_map m ON src.${key} = m.template_id`,
    });
  }
  // Copies are dated from the poll horizon (72 h) back to a year ago: every unpaid copy has
  // expired, as the worker would have made it.
  const spread = 362 * 86_400;
  // A bulk load's usual way: the copied tables' secondary indexes are dropped while the rows go
  // in and built afterwards (sorted, in parallel), which takes minutes instead of an hour at ten
  // million orders. BENCH_DATA_REBUILD_INDEXES=0 keeps them (each row then updates each index).
  const rebuild = process.env.BENCH_DATA_REBUILD_INDEXES !== '0';
  const { rows: indexes } = rebuild
    ? await db.query(
        `SELECT i.indexname AS name, i.indexdef AS definition FROM pg_indexes i
          WHERE i.schemaname = 'public' AND i.tablename = ANY($1)
            AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
        [copies.map((copy) => copy.table)],
      )
    : { rows: [] };
  for (const index of indexes) await db.query(`DROP INDEX "${String(index.name)}"`);
  for (let from = have + 1; from <= target; from += BATCH) {
    const to = Math.min(target, from + BATCH - 1);
    await db.query('BEGIN');
    await db.query(
      `CREATE TEMP TABLE grow_map ON COMMIT DROP AS
         SELECT g, gen_random_uuid() AS new_id, t.id AS template_id,
                now() - interval '72 hours' - make_interval(secs => (g::float8 / $3) * $4) AS created_at,
                now() - interval '72 hours' - make_interval(secs => (g::float8 / $3) * $4)
                  - t.created_at AS shift
           FROM generate_series($1::int, $2::int) AS g
           JOIN templates t ON t.n = g % $5`,
      [from, to, target, spread, templates],
    );
    await db.query('CREATE INDEX ON grow_map (template_id)');
    for (const copy of copies) await db.query(copy.sql);
    await db.query('COMMIT');
    const done = to;
    const rate = (done - have) / ((performance.now() - started) / 1000);
    process.stdout.write(`\r  ${done.toLocaleString('en')} orders (${rate.toFixed(0)}/s)   `);
  }
  process.stdout.write('\n');
  if (indexes.length > 0) {
    say(`  building ${indexes.length} indexes…`);
    await db.query(`SET maintenance_work_mem = '1GB'`);
    await db.query('SET max_parallel_maintenance_workers = 2');
    for (const index of indexes) await db.query(String(index.definition));
  }
  return { orders: await orderCount(db), seconds: (performance.now() - started) / 1000 };
}

/** Retention passes through the worker's job until one removes nothing (or time is up). */
async function pruneAll(env: Record<string, string>) {
  const config = loadServiceConfig(env);
  const queue = new Queue(QUEUES.reconciliation, {
    connection: queueConnectionFor(config),
    prefix: queueKeyPrefix(config, QUEUES.reconciliation),
  });
  const started = performance.now();
  const removed: Record<string, number> = {};
  let passes = 0;
  try {
    while (performance.now() - started < RETENTION_MINUTES * 60_000) {
      const job = await queue.add(
        'prune-operational-records',
        {},
        {
          ...jobOptions('prune-operational-records', {}),
          jobId: `bench-prune-${passes}`,
        },
      );
      let result: Record<string, number> | null = null;
      await waitUntil(
        'a retention pass',
        async () => {
          const state = await job.getState();
          if (state === 'failed') throw new Error('the retention pass failed');
          if (state !== 'completed') return false;
          result = ((await queue.getJob(job.id!))?.returnvalue ?? {}) as Record<string, number>;
          return true;
        },
        30 * 60_000,
        500,
      );
      passes += 1;
      const pass: Record<string, number> = result ?? {};
      for (const [kind, count] of Object.entries(pass))
        removed[kind] = (removed[kind] ?? 0) + count;
      if (Object.values(pass).every((count) => count === 0)) break;
    }
  } finally {
    await queue.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const total = Object.values(removed).reduce((sum, n) => sum + n, 0);
  return { passes, seconds: round(seconds), removed, rows_per_second: Math.round(total / seconds) };
}

function report(results: Record<string, unknown>, rows: Record<string, unknown>[]): void {
  const pad = (text: unknown, width: number) => String(text).padStart(width);
  say();
  say(
    `| call | small (ms) | ${Number((results.orders as { large: number }).large).toLocaleString('en')} orders (ms) | ratio | after retention (ms) | within max(2×, 25 ms) |`,
  );
  say('| --- | ---: | ---: | ---: | ---: | --- |');
  for (const row of rows) {
    say(
      `| ${String(row.call)} | ${pad(row.small_ms, 6)} | ${pad(row.large_ms, 6)} | ${pad(row.ratio, 5)} | ${pad(row.after_retention_ms, 6)} | ${row.within_target ? 'yes' : 'NO'} |`,
    );
  }
  const idle = results.idle_cpu_ms_per_minute as Record<string, Record<string, number>>;
  say();
  say('idle CPU ms per minute (api, worker, PostgreSQL):');
  say(`  small: ${idle.small.api}, ${idle.small.worker}, ${idle.small.postgres}`);
  say(`  large: ${idle.large.api}, ${idle.large.worker}, ${idle.large.postgres}`);
  say(
    `overview: a year of hours summed in ${String(results.overview_summing_seconds)} s; each window under ${OVERVIEW_TARGET_MS} ms on the large database is the target`,
  );
  say(`bytes per order: ${JSON.stringify(results.bytes_per_order)}`);
  say(`retention: ${JSON.stringify(results.retention)}`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  processes.signal('SIGTERM');
  process.exit(1);
});
