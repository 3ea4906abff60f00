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
import { Client } from 'pg';
import { BenchStores, call, freePorts, MeasuredProcesses, waitUntil } from './processes';
import { writeResults } from './results';
import { grow, sumHistory } from './data-growth/growing';
import { idleCpu, measure, OVERVIEW, OVERVIEW_TARGET_MS, probesFor } from './data-growth/measuring';
import { makeOrders } from './data-growth/orders';
import { report } from './data-growth/report';
import { pruneAll } from './data-growth/retention';
import { CALLS, KEY, round, say, TARGET } from './data-growth/settings';
import { orderCount, storage } from './data-growth/storage';

const processes = new MeasuredProcesses();

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

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  processes.signal('SIGTERM');
  process.exit(1);
});
