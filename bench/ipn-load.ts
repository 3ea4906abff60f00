/**
 * IPN load: N distinct orders paid at the sandbox, then their notifications fired at the service
 * at rising rates (open loop, a share of duplicates), beside a bare Fastify route answering the
 * same acknowledgement on this machine in the same run. Reports acknowledgement latency p50/p99,
 * throughput, and (at the first rate) the time until every order is final after the last
 * notification, with a check that nothing was lost or applied twice.
 *
 * Then the api alone (the worker paused with SIGSTOP: the api's own capacity, as with the worker on
 * other cores) against the bare route, at rates ramped geometrically (BENCH_ALONE_FROM, 2,000/s,
 * times BENCH_ALONE_FACTOR, 1.25) until the bare route stops acknowledging every notification with
 * p99 <= 25 ms at BENCH_ALONE_MISSES (2) steps running, or BENCH_ALONE_MAX (60,000/s) is passed
 * (each step BENCH_ROUNDS stages of each, alternated, each right after the same load on its
 * contender, not counted; its latencies and rate the medians):
 * the highest rate each met, and their ratio, are never capped by the rates chosen. With the
 * floor, each step also fires at its store-and-acknowledge route (bench/floor-ipn.ts /ipn/stored:
 * framework-free, its INSERTs batched as the api's, answered after the commit), what the api
 * alone must do, and at /ipn/unflushed, the same committed without waiting for the disk (a
 * trial: what of the tail is the flush). Each step reads where the cores went. Each step
 * notifies at most BENCH_ALONE_ORDERS (5,000) paid orders, the rest repeats: a repeat costs the
 * api the same INSERT. BENCH_ALONE_MAX=0 leaves the ramp out.
 *
 *   npm run bench:ipn                                     # 500, 1000, 2000, 3000 /s, 4 s each
 *   BENCH_RATES=500,2000 BENCH_SECONDS=3 BENCH_DUPLICATES=0.2 npm run bench:ipn
 *   BENCH_CPU_PROFILE_DIR=/tmp/profiles npm run bench:ipn   # plus a CPU profile per process
 *   BENCH_TRACE=1 npm run bench:ipn                        # p99/max per 250 ms of each stage
 *   BENCH_API_FLAGS=--trace-gc npm run bench:ipn           # node flags for one child (API, WORKER...)
 *
 * The generator (bench/open-loop.ts) writes pre-built requests on BENCH_CONNECTIONS (64) kept-alive
 * sockets, so that it takes as little as possible of the cores it shares with what it measures.
 *
 * At the first rate, the same kind of notifications (for orders of their own) also go through
 * bench/floor-ipn.ts, the floor: one framework-free process that stores, acknowledges, looks up and
 * applies, with no queue or batching, so the service's work per notification shows against what
 * any integration with the same promises must spend (BENCH_FLOOR=0 leaves it out); and through
 * the split floor, the same work split as the service splits it with no framework (the floor's
 * /ipn/split and bench/floor-ipn-worker.ts, which verifies through a BullMQ queue), so the cost of
 * the design shows apart from the cost of the service's code.
 *
 * Sandbox, api, worker, the bare route and the floor run as child processes (the built apps, built
 * first when needed; BENCH_FROM=source runs them through @swc-node/register) on a fresh database on
 * 127.0.0.1:5432 (or BENCH_POSTGRES_URL) and Redis at BENCH_REDIS_URL (or REDIS_URL, default
 * 127.0.0.1:6379) under a fresh queue prefix, both removed once the processes have exited.
 */
import { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { fireOpenLoop, quantile } from './open-loop';
import {
  benchRounds,
  costPer,
  cpuMs,
  databaseCounters,
  databaseWorkPer,
  groupCpuMs,
  itemsPerStatement,
  machineBusyMs,
  median,
  medianBy,
  medians,
  peakRssMiB,
  settledReading,
  sharedStatements,
} from './counters';
import { BenchStores, call, freePorts, MeasuredProcesses, waitUntil } from './processes';
import { ratioLines } from './floor-goals';
import { BenchProfiling } from './cpu-profile';

const RATES = (process.env.BENCH_RATES ?? '500,1000,2000,3000').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const DUPLICATES = Number(process.env.BENCH_DUPLICATES ?? 0.2);
/**
 * Notifications each of the service, the floor and the split floor settles before the stages
 * (BENCH_WARM_NOTIFICATIONS), at 500/s: the figures are those of processes whose JIT has settled,
 * as long-running ones have, and no warm-up work is left to count in a stage.
 */
const WARM_NOTIFICATIONS = Number(process.env.BENCH_WARM_NOTIFICATIONS ?? 2000);
/**
 * Seconds of notifications, at the stage's rate and not counted, that the contender of each
 * measured stage of the first rate (the service, the floor, the split floor) and of the api-alone
 * ramp takes right before it (BENCH_REWARM_SECONDS, a stage's length by default; 0 leaves it
 * out). While the others' stages run, a contender sits idle, and a full GC of an idle process
 * throws away optimised code whose objects it collected (V8's trace: "marking dependent code ...
 * reason: weak objects"): without this, the first stage after such a pause paid for its JIT again
 * (about a third more CPU per notification for the service, with far more code to optimise again
 * than the floors).
 */
const REWARM_SECONDS = Number(process.env.BENCH_REWARM_SECONDS ?? SECONDS);
/** Kept-alive sockets the generator fires on (one request in flight on each). */
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const WITH_FLOOR = process.env.BENCH_FLOOR !== '0';
/** The first rate's stages through the service and the floor, alternated; medians reported. */
const ROUNDS = benchRounds();
/** The api-alone ramp: first rate, factor between steps, highest rate tried, orders per step. */
const ALONE_FROM = rampSetting('BENCH_ALONE_FROM', 2000, 1);
/** Above 1, or the ramp would never climb. */
const ALONE_FACTOR = rampSetting('BENCH_ALONE_FACTOR', 1.25, 1.01);
const ALONE_MAX = rampSetting('BENCH_ALONE_MAX', 60_000, 0);
const ALONE_ORDERS = rampSetting('BENCH_ALONE_ORDERS', 5000, 1);
/** Steps running the bare route must miss for the ramp to end (one may be a passing hiccup). */
const ALONE_MISSES = rampSetting('BENCH_ALONE_MISSES', 2, 1);
/** What a stage must do to count as met: every notification acknowledged, p99 within 25 ms. */
const P99_LIMIT_MS = 25;

/**
 * BENCH_CPU_PROFILE_DIR=/tmp/x keeps a V8 CPU profile of each child (<name>.cpuprofile) there;
 * BENCH_PROFILE=1 puts where the api's, the worker's and the floor's time went, layer by layer, in
 * bench/results/ipn-profile.json (a profiled run is slower, so its figures do not replace ipn.json's).
 * Every child is profiled then, the sandbox and the bare route too.
 */
const profiling = new BenchProfiling('ipn', ['api', 'worker', 'floor'], true);
const processes = new MeasuredProcesses(profiling.flagsFor);

const send = (url: string, method: string, body?: unknown) => call(url, method, { body });

const BARE_ROUTE = `
const fastify = require('fastify')();
fastify.post('/ipn', async (request) => ({
  orderNotificationType: request.body.OrderNotificationType,
  orderTrackingId: request.body.OrderTrackingId,
  orderMerchantReference: request.body.OrderMerchantReference,
  status: 200,
}));
fastify.listen({ port: Number(process.env.BARE_PORT), host: '127.0.0.1' });
`;

interface Notification {
  trackingId: string;
  reference: string;
}

interface Stage {
  sent: number;
  ok: number;
  perSecond: number;
  p50: number;
  p99: number;
  lastSentAt: number;
  /** Cores in use during the stage, when the process answering was named to fire. */
  cores?: StageCores;
}

/**
 * Where the machine's cores went while a stage ran, in cores (CPU ms per ms of the stage): the
 * process answering, PostgreSQL, this generator (building its requests, sending them, reading
 * the answers) and the whole machine (everything else too).
 */
interface StageCores extends Record<string, number> {
  answering: number;
  postgres: number;
  generator: number;
  machine: number;
}

/** CPU readings to take before and after a stage, for its StageCores. */
function coreReadings(answering: ChildProcess): () => StageCores {
  const read = () => {
    const own = process.cpuUsage();
    return {
      answering: cpuMs(answering.pid as number),
      postgres: groupCpuMs('postgres'),
      generator: (own.user + own.system) / 1000,
      machine: machineBusyMs(),
      at: performance.now(),
    };
  };
  const before = read();
  return () => {
    const after = read();
    const per = (key: 'answering' | 'postgres' | 'generator' | 'machine') =>
      Number(((after[key] - before[key]) / (after.at - before.at)).toFixed(2));
    return {
      answering: per('answering'),
      postgres: per('postgres'),
      generator: per('generator'),
      machine: per('machine'),
    };
  };
}

/** Stages of one rate as one: their medians, every notification sent and acknowledged summed. */
function medianStage(stages: Stage[]): Stage {
  const cores = stages.flatMap((stage) => (stage.cores ? [stage.cores] : []));
  return {
    ...medians(stages.map(({ perSecond, p50, p99 }) => ({ perSecond, p50, p99 }))),
    ...(cores.length > 0 ? { cores: medians(cores) } : {}),
    sent: stages.reduce((sum, stage) => sum + stage.sent, 0),
    ok: stages.reduce((sum, stage) => sum + stage.ok, 0),
    lastSentAt: Math.max(...stages.map((stage) => stage.lastSentAt)),
  };
}

/**
 * Fires the notifications at a fixed rate regardless of answers (bench/open-loop.ts); latency is
 * measured from each planned send. An acknowledgement counts when it is HTTP 200 with status 200.
 */
async function fire(
  url: string,
  rate: number,
  notifications: Notification[],
  answering?: ChildProcess,
): Promise<Stage> {
  profiling.loadBegins();
  const target = new URL(url);
  const cores = answering ? coreReadings(answering) : undefined;
  const result = await fireOpenLoop(
    target.origin,
    notifications.map((n) => ({
      method: 'POST' as const,
      path: target.pathname,
      body: {
        OrderTrackingId: n.trackingId,
        OrderMerchantReference: n.reference,
        OrderNotificationType: 'IPNCHANGE',
      },
    })),
    rate,
    { connections: CONNECTIONS, keepBodies: true },
  );
  // Read before the answers are checked: that work is the generator's after the stage.
  const used = cores?.();
  let ok = 0;
  result.statuses.forEach((status, index) => {
    if (status === 200 && JSON.parse(result.bodies[index]).status === 200) ok += 1;
  });
  if (TRACE) printTrace(result.latencies, rate);
  return {
    ...(used ? { cores: used } : {}),
    sent: notifications.length,
    ok,
    perSecond: ok / result.elapsedSeconds,
    p50: quantile(result.latencies, 0.5),
    p99: quantile(result.latencies, 0.99),
    lastSentAt: result.lastSentAt,
  };
}

/** BENCH_TRACE=1 prints p99/max of each 250 ms of a stage (by planned send), to see when a tail forms. */
const TRACE = process.env.BENCH_TRACE === '1';
function printTrace(latencies: Float64Array, rate: number): void {
  const perWindow = Math.max(1, Math.round(rate / 4));
  const parts: string[] = [];
  for (let from = 0; from < latencies.length; from += perWindow) {
    const window = latencies.slice(from, from + perWindow);
    parts.push(
      `${Math.round((from * 1000) / rate)}:${quantile(window, 0.99).toFixed(0)}/${quantile(window, 1).toFixed(0)}`,
    );
  }
  process.stdout.write(`p99/max ms per 250 ms: ${parts.join(' ')}\n`);
}

/** Each order once, plus a share of repeats spread through the run. */
function withDuplicates(orders: Notification[], count: number): Notification[] {
  const list: Notification[] = [];
  let next = 0;
  for (let i = 0; i < count; i += 1) {
    // Every order is notified at least once: once the slots left equal the orders not yet
    // notified, only new ones are taken.
    const mustTakeNew = count - i <= orders.length - next;
    if (next < orders.length && (next === 0 || mustTakeNew || Math.random() >= DUPLICATES)) {
      list.push(orders[next]);
      next += 1;
    } else {
      list.push(orders[Math.floor(Math.random() * Math.max(1, next))]);
    }
  }
  return list;
}

async function main(): Promise<void> {
  let recorded: Record<string, unknown> | null = null;
  const stores = await BenchStores.create('ipn');
  const db = new Client({ connectionString: stores.databaseUrl });
  const [sandboxPort, apiPort, workerPort, barePort, floorPort, splitPort] = await freePorts(6);
  const sandbox = `http://127.0.0.1:${sandboxPort}`;
  const api = `http://127.0.0.1:${apiPort}`;
  const secret = `ipn_${randomBytes(8).toString('hex')}`;
  const serviceEnv = {
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    DATABASE_URL: stores.databaseUrl,
    REDIS_URL: stores.redisUrl,
    QUEUE_BACKEND: 'redis',
    QUEUE_PREFIX: stores.queuePrefix,
    PESAPAL_BASE_URL: `${sandbox}/pesapalv3/api`,
    PUBLIC_BASE_URL: api,
    IPN_PATH_SECRET: secret,
    // Polls far away: every completion measured here comes from a notification.
    POLL_SCHEDULE_SECONDS: '3600',
    SWEEP_INTERVAL_MS: '1000',
    // Every notification here comes from one address (this generator), where the gateway sends
    // from several: the per-address ceiling (120,000 a minute by default) would refuse the ramp's
    // later steps with 429, measuring the ceiling, not the api. At its highest it still counts.
    RATE_LIMIT_IPN_PER_MINUTE: '10000000',
  };
  try {
    processes.startSandbox(sandboxPort, { SANDBOX_CONTROL: 'true' });
    const bareRoute = processes.start('bare', ['-r', '@swc-node/register', '-e', BARE_ROUTE], {
      BARE_PORT: String(barePort),
    });
    const apiProcess = processes.startApp('api', { ...serviceEnv, PORT: String(apiPort) });
    await waitUntil('api', async () => (await send(`${api}/health/live`, 'GET')).status < 500);
    const worker = processes.startApp('worker', {
      ...serviceEnv,
      WORKER_PORT: String(workerPort),
      RUN_MIGRATIONS: 'false',
    });
    await db.connect();
    const workSoFar = async () => ({
      database: await databaseCounters(db, stores.database),
      api: cpuMs(apiProcess.pid as number),
      worker: cpuMs(worker.pid as number),
      postgres: groupCpuMs('postgres'),
      redis: groupCpuMs('redis-server'),
      shared: await sharedStatements([api, `http://127.0.0.1:${workerPort}`]),
    });
    type Work = Awaited<ReturnType<typeof workSoFar>>;
    const perOperation: string[] = [];
    const results: Record<string, unknown> = {
      seconds_per_rate: SECONDS,
      duplicates: DUPLICATES,
      rates: [] as Record<string, unknown>[],
      api_alone: [] as Record<string, unknown>[],
    };
    /** Work per notification between two readings, as numbers. */
    const workPer = (from: Work, to: Work, n: number) => {
      const each = (a: number, b: number, digits = 2) => Number(costPer(a, b, n, digits));
      return {
        ...databaseWorkPer(from.database, to.database, n),
        rows_deleted: each(from.database.deleted, to.database.deleted),
        cpu_ms_api: each(from.api, to.api, 3),
        cpu_ms_worker: each(from.worker, to.worker, 3),
        cpu_ms_postgres: each(from.postgres, to.postgres, 3),
        cpu_ms_redis: each(from.redis, to.redis, 3),
        peak_rss_mib_api: Math.round(peakRssMiB(apiProcess.pid as number)),
        peak_rss_mib_worker: Math.round(peakRssMiB(worker.pid as number)),
      };
    };
    const perNotification = (from: Work, to: Work, n: number, rate: number): string => {
      const each = (a: number, b: number, digits = 2) => costPer(a, b, n, digits);
      return (
        `per notification at ${rate}/s (${n}, ${Math.round(DUPLICATES * 100)}% duplicates): ` +
        `${each(from.database.commits, to.database.commits)} commits, ` +
        `${each(from.database.inserted, to.database.inserted)} rows inserted, ` +
        `${each(from.database.updated, to.database.updated)} updated, ` +
        `${each(from.database.deleted, to.database.deleted)} deleted; CPU ms: ` +
        `api ${each(from.api, to.api, 3)}, worker ${each(from.worker, to.worker, 3)}, ` +
        `PostgreSQL ${each(from.postgres, to.postgres, 3)}, Redis ${each(from.redis, to.redis, 3)}; ` +
        `peak RSS MiB: api ${peakRssMiB(apiProcess.pid as number).toFixed(0)}, ` +
        `worker ${peakRssMiB(worker.pid as number).toFixed(0)}; ` +
        `items per shared statement: ${itemsPerStatement(from.shared, to.shared)}`
      );
    };
    await waitUntil('IPN registration', async () => {
      const rows = await db.query('SELECT ipn_id FROM ipn_registrations');
      return rows.rowCount === 1;
    });
    const ipnId = (await db.query('SELECT ipn_id FROM ipn_registrations')).rows[0].ipn_id as string;
    await send(`${sandbox}/__sandbox/notifications`, 'POST', { mode: 'drop' });
    const token = JSON.parse(
      (
        await send(`${sandbox}/pesapalv3/api/Auth/RequestToken`, 'POST', {
          consumer_key: 'sandbox-consumer-key',
          consumer_secret: 'sandbox-consumer-secret',
        })
      ).body,
    ).token as string;

    /** Orders created at the sandbox and stored as the checkout API would, then paid. */
    async function paidOrders(count: number): Promise<Notification[]> {
      const orders: Notification[] = [];
      for (let offset = 0; offset < count; offset += 100) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(100, count - offset) }, async () => {
            const reference = `bench-${randomBytes(6).toString('hex')}`;
            const created = await call(
              `${sandbox}/pesapalv3/api/Transactions/SubmitOrderRequest`,
              'POST',
              {
                headers: { authorization: `Bearer ${token}` },
                body: {
                  id: reference,
                  currency: 'KES',
                  amount: 100,
                  description: 'bench',
                  callback_url: 'https://shop.example/back',
                  notification_id: ipnId,
                  billing_address: { email_address: 'bench@example.com' },
                },
              },
            );
            const trackingId = JSON.parse(created.body).order_tracking_id as string;
            return { trackingId, reference };
          }),
        );
        await db.query(
          `INSERT INTO orders (merchant_reference, order_tracking_id, kind, status, submission_status,
                               amount, currency, description, next_poll_at, version)
           SELECT r, t, 'hosted', 'pending', 'submitted', 100.00, 'KES', 'bench', now() + interval '1 hour', 1
             FROM unnest($1::text[], $2::text[]) AS x(r, t)`,
          [batch.map((o) => o.reference), batch.map((o) => o.trackingId)],
        );
        await Promise.all(
          batch.map((o) =>
            send(`${sandbox}/__sandbox/orders/${o.trackingId}/outcome`, 'POST', {
              outcome: 'completed',
              method: 'card',
            }),
          ),
        );
        orders.push(...batch);
      }
      return orders;
    }

    // After the api: its migrations made the tables.
    const floor = WITH_FLOOR
      ? processes.start('floor', ['-r', '@swc-node/register', 'bench/floor-ipn.ts'], {
          PORT: String(floorPort),
          DATABASE_URL: stores.databaseUrl,
          GATEWAY_URL: `${sandbox}/pesapalv3/api`,
          GATEWAY_TOKEN: token,
        })
      : undefined;
    const floorUrl = `http://127.0.0.1:${floorPort}/ipn`;
    if (floor) {
      await waitUntil(
        'the floor',
        async () => (await send(`http://127.0.0.1:${floorPort}/health`, 'GET')).status === 200,
      );
    }
    // The split floor's worker half, beside the floor's process (its api half, /ipn/split).
    const splitWorker = floor
      ? processes.start('split-worker', ['-r', '@swc-node/register', 'bench/floor-ipn-worker.ts'], {
          PORT: String(splitPort),
          DATABASE_URL: stores.databaseUrl,
          REDIS_URL: stores.redisUrl,
          QUEUE_PREFIX: `${stores.queuePrefix}:split-floor`,
          GATEWAY_URL: `${sandbox}/pesapalv3/api`,
          GATEWAY_TOKEN: token,
        })
      : undefined;
    if (splitWorker) {
      await waitUntil(
        'the split floor',
        async () => (await send(`http://127.0.0.1:${splitPort}/health`, 'GET')).status === 200,
      );
    }

    /**
     * Waits until every one of these orders is completed; seconds after `lastSentAt`. `through`
     * names who took their notifications, for the message when some never are.
     */
    async function finalAfter(
      orders: Notification[],
      lastSentAt: number,
      through: string,
    ): Promise<number> {
      const references = orders.map((o) => o.reference);
      let left = orders.length;
      await waitUntil(
        'every order final',
        async () => {
          const { rows } = await db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM orders WHERE merchant_reference = ANY($1) AND status <> 'completed'`,
            [references],
          );
          left = rows[0].n;
          return left === 0;
        },
        120_000,
      ).catch(async (error: Error) => {
        // What their notifications came to, for whoever reads why.
        const { rows } = await db.query<{ status: string; n: number }>(
          `SELECT n.status, count(*)::int AS n FROM ipn_notifications n
             JOIN orders o ON o.order_tracking_id = n.order_tracking_id
            WHERE o.merchant_reference = ANY($1) AND o.status <> 'completed' GROUP BY n.status`,
          [references],
        );
        const rowsSeen = rows.map((row) => `${row.n} ${row.status}`).join(', ') || 'none';
        throw new Error(
          `${error.message} (notifications through ${through}): ${left} of ${orders.length} left; ` +
            `their notifications: ${rowsSeen}`,
        );
      });
      return (Date.now() - lastSentAt) / 1000;
    }

    /** The contender at `url` back under load before its stage (REWARM_SECONDS, not counted). */
    async function rewarm(url: string, rate: number): Promise<void> {
      const count = Math.round(rate * REWARM_SECONDS);
      if (count <= 0) return;
      const orders = await paidOrders(Math.round(count * (1 - DUPLICATES)));
      const stage = await fire(url, rate, withDuplicates(orders, count));
      // The service's URL holds its IPN path secret: named, not shown.
      await finalAfter(orders, stage.lastSentAt, url.startsWith(api) ? 'the service' : url);
    }

    /**
     * A stage through a floor at `url`, for orders of its own: its latencies, finality and work
     * per notification, the CPU of each of its processes as cpu_ms_<name>.
     */
    async function floorStage(
      url: string,
      children: Record<string, ChildProcess>,
      rate: number,
      count: number,
    ): Promise<{ stage: Stage; final: number; figures: Record<string, number> }> {
      const orders = await paidOrders(Math.round(count * (1 - DUPLICATES)));
      const notifications = withDuplicates(orders, count);
      const names = Object.keys(children);
      await rewarm(url, rate);
      const counted = async () => ({
        database: await databaseCounters(db, stores.database),
        cpu: names.map((name) => cpuMs(children[name].pid as number)),
        postgres: groupCpuMs('postgres'),
      });
      const from = await settledReading(counted);
      const stage = await fire(url, rate, notifications);
      const final = await finalAfter(orders, stage.lastSentAt, url);
      const to = await settledReading(counted);
      const each = (a: number, b: number) => Number(costPer(a, b, count, 3));
      const figures: Record<string, number> = {
        rate,
        ack_p50_ms: Number(stage.p50.toFixed(2)),
        ack_p99_ms: Number(stage.p99.toFixed(2)),
        final_after_last_s: Number(final.toFixed(2)),
        ...databaseWorkPer(from.database, to.database, count),
        cpu_ms_postgres: each(from.postgres, to.postgres),
      };
      names.forEach((name, index) => {
        figures[`cpu_ms_${name}`] = each(from.cpu[index], to.cpu[index]);
      });
      return { stage, final, figures };
    }

    /** The first rate's stage through the floor: its work per notification. */
    async function atFloor(
      floorProcess: ChildProcess,
      rate: number,
      count: number,
    ): Promise<{ line: string; figures: Record<string, number> }> {
      const { stage, final, figures } = await floorStage(
        floorUrl,
        { floor: floorProcess },
        rate,
        count,
      );
      const line =
        `the floor at ${rate}/s (bench/floor-ipn.ts, ${count} notifications, orders of its own): ` +
        `ack p50 ${stage.p50.toFixed(1)} p99 ${stage.p99.toFixed(1)} ms, ok ${stage.ok}/${stage.sent}, ` +
        `all final ${final.toFixed(2)} s after the last; per notification ` +
        `${figures.commits.toFixed(2)} commits, ${figures.rows_inserted.toFixed(2)} rows inserted, ` +
        `${figures.rows_updated.toFixed(2)} updated; CPU ms: floor ${figures.cpu_ms_floor}, ` +
        `PostgreSQL ${figures.cpu_ms_postgres}; ` +
        `peak RSS ${peakRssMiB(floorProcess.pid as number).toFixed(0)} MiB`;
      return { line, figures };
    }

    /**
     * The first rate's stage through the split floor (the floor's /ipn/split and its worker
     * half): what the service's design, an api that stores and a worker that verifies through a
     * queue, costs with no framework.
     */
    async function atSplitFloor(
      apiHalf: ChildProcess,
      workerHalf: ChildProcess,
      rate: number,
      count: number,
    ): Promise<{ line: string; figures: Record<string, number> }> {
      const { stage, final, figures } = await floorStage(
        `${floorUrl}/split`,
        { api: apiHalf, worker: workerHalf },
        rate,
        count,
      );
      const line =
        `the split floor at ${rate}/s (bench/floor-ipn.ts /ipn/split and bench/floor-ipn-worker.ts, ` +
        `${count} notifications, orders of its own): ack p50 ${stage.p50.toFixed(1)} ` +
        `p99 ${stage.p99.toFixed(1)} ms, ok ${stage.ok}/${stage.sent}, all final ` +
        `${final.toFixed(2)} s after the last; CPU ms: api half ${figures.cpu_ms_api}, worker half ` +
        `${figures.cpu_ms_worker}, PostgreSQL ${figures.cpu_ms_postgres}`;
      return { line, figures };
    }

    /** A stage through the service that has ended: finality, doubles, storage and its work. */
    async function serviceWork(
      orders: Notification[],
      count: number,
      rate: number,
      before: Work,
      service: Stage,
    ) {
      const references = orders.map((o) => o.reference);
      const final = await finalAfter(orders, service.lastSentAt, 'the service');
      const doubled = await db.query(
        `SELECT count(*)::int AS n FROM (
           SELECT e.order_id FROM order_events e JOIN orders o ON o.id = e.order_id
            WHERE o.merchant_reference = ANY($1) AND e.type = 'status_changed'
            GROUP BY e.order_id HAVING count(*) > 1) d`,
        [references],
      );
      const stored = await db.query(
        `SELECT count(*)::int AS n FROM ipn_notifications WHERE order_tracking_id = ANY($1)`,
        [orders.map((o) => o.trackingId)],
      );
      const after = await settledReading(workSoFar);
      return {
        service,
        orders: orders.length,
        final,
        doubled: doubled.rows[0].n as number,
        stored: stored.rows[0].n as number,
        line: perNotification(before, after, count, rate),
        work: workPer(before, after, count),
      };
    }
    type ServiceWork = Awaited<ReturnType<typeof serviceWork>>;

    /** Another stage through the service at this rate, on orders of its own. */
    async function serviceStage(rate: number, count: number): Promise<ServiceWork> {
      const orders = await paidOrders(Math.round(count * (1 - DUPLICATES)));
      await rewarm(`${api}/v1/ipn/${secret}`, rate);
      const before = await settledReading(workSoFar);
      const service = await fire(`${api}/v1/ipn/${secret}`, rate, withDuplicates(orders, count));
      return serviceWork(orders, count, rate, before, service);
    }

    // Warm the servers (JIT, connection pools) before measuring, each settling its warm-up.
    const warm = await paidOrders(WARM_NOTIFICATIONS);
    await fire(`${api}/v1/ipn/${secret}`, 500, warm);
    await finalAfter(warm, Date.now(), 'the service');
    await fire(`http://127.0.0.1:${barePort}/ipn`, 500, warm);
    if (floor) {
      const floorWarm = await paidOrders(WARM_NOTIFICATIONS);
      await fire(floorUrl, 500, floorWarm);
      await finalAfter(floorWarm, Date.now(), floorUrl);
      const splitWarm = await paidOrders(WARM_NOTIFICATIONS);
      await fire(`${floorUrl}/split`, 500, splitWarm);
      await finalAfter(splitWarm, Date.now(), `${floorUrl}/split`);
    }

    const lines: string[] = [];
    for (const [index, rate] of RATES.entries()) {
      const count = Math.round(rate * SECONDS);
      const orders = await paidOrders(Math.round(count * (1 - DUPLICATES)));
      const notifications = withDuplicates(orders, count);
      const bare = await fire(`http://127.0.0.1:${barePort}/ipn`, rate, notifications);
      // The first rate's work per notification: counters around its stage (published late).
      let before: Work | undefined;
      if (index === 0) {
        await rewarm(`${api}/v1/ipn/${secret}`, rate);
        before = await settledReading(workSoFar);
      }
      const service = await fire(`${api}/v1/ipn/${secret}`, rate, notifications);
      let finality = '';
      const atRate: Record<string, unknown> = {
        rate,
        service: {
          per_second: Math.round(service.perSecond),
          p50_ms: Number(service.p50.toFixed(2)),
          p99_ms: Number(service.p99.toFixed(2)),
          ok: service.ok,
          sent: service.sent,
        },
        bare_route: {
          per_second: Math.round(bare.perSecond),
          p50_ms: Number(bare.p50.toFixed(2)),
          p99_ms: Number(bare.p99.toFixed(2)),
        },
      };
      (results.rates as Record<string, unknown>[]).push(atRate);
      let shown = service;
      if (index === 0) {
        // Rounds alternate the order: the stage above, then the floor; the floor, then the
        // service; ... Each figure is the median of its stages; losses and doubles are summed.
        const services = [await serviceWork(orders, count, rate, before as Work, service)];
        const floors: Record<string, number>[] = [];
        const splitFloors: Record<string, number>[] = [];
        for (let round = 0; round < ROUNDS; round += 1) {
          if (round > 0 && round % 2 === 0) services.push(await serviceStage(rate, count));
          if (floor) {
            const atTheFloor = await atFloor(floor, rate, count);
            perOperation.push(atTheFloor.line);
            floors.push(atTheFloor.figures);
          }
          if (floor && splitWorker) {
            const split = await atSplitFloor(floor, splitWorker, rate, count);
            perOperation.push(split.line);
            splitFloors.push(split.figures);
          }
          if (round % 2 === 1) services.push(await serviceStage(rate, count));
        }
        for (const stage of services) perOperation.push(stage.line);
        const acks = medians(
          services.map(({ service: s }) => ({ perSecond: s.perSecond, p50: s.p50, p99: s.p99 })),
        );
        const sum = (pick: (stage: ServiceWork) => number) =>
          services.reduce((total, stage) => total + pick(stage), 0);
        shown = {
          ...acks,
          sent: sum((stage) => stage.service.sent),
          ok: sum((stage) => stage.service.ok),
          lastSentAt: service.lastSentAt,
        };
        const final = median(services.map((stage) => stage.final));
        const lost = sum((stage) => stage.service.sent - stage.service.ok);
        const doubled = sum((stage) => stage.doubled);
        const stored = sum((stage) => stage.stored);
        finality =
          ` | ${ROUNDS} rounds: every order final ${final.toFixed(2)} s after the last (median);` +
          ` ${lost} lost acks, ${doubled} doubled, ${stored}/${shown.sent} stored`;
        atRate.service = {
          per_second: Math.round(shown.perSecond),
          p50_ms: Number(shown.p50.toFixed(2)),
          p99_ms: Number(shown.p99.toFixed(2)),
          ok: shown.ok,
          sent: shown.sent,
        };
        atRate.final_after_last_s = Number(final.toFixed(2));
        atRate.lost_acks = lost;
        atRate.doubled = doubled;
        atRate.stored = stored;
        // The goals add a stage's api and worker CPU (and its rows): one stage's figures, the
        // one at the median of that sum; the floor's at the median of its CPU.
        atRate.per_notification = medianBy(
          services.map((stage) => stage.work),
          (work) => work.cpu_ms_api + work.cpu_ms_worker,
        );
        if (floors.length > 0) atRate.floor = medianBy(floors, (figures) => figures.cpu_ms_floor);
        if (splitFloors.length > 0) {
          atRate.split_floor = medianBy(
            splitFloors,
            (figures) => figures.cpu_ms_api + figures.cpu_ms_worker,
          );
        }
      }
      lines.push(
        `${String(rate).padStart(5)}/s | service ${shown.perSecond.toFixed(0).padStart(5)}/s ` +
          `p50 ${shown.p50.toFixed(1).padStart(6)} p99 ${shown.p99.toFixed(1).padStart(6)} ms ` +
          `ok ${shown.ok}/${shown.sent} | bare ${bare.perSecond.toFixed(0).padStart(5)}/s ` +
          `p50 ${bare.p50.toFixed(1).padStart(5)} p99 ${bare.p99.toFixed(1).padStart(5)} ms${finality}`,
      );
      process.stdout.write(`${lines[lines.length - 1]}\n`);
    }

    // The api's own capacity: the worker paused for the whole ramp (its backlog would take the
    // cores between steps), each step fired at the bare route, then at the api.
    const ramp = {
      from: ALONE_FROM,
      factor: ALONE_FACTOR,
      max: ALONE_MAX,
      misses: ALONE_MISSES,
      rounds: ROUNDS,
      rewarm_seconds: REWARM_SECONDS,
      capped: true,
    };
    let missed = 0;
    if (ALONE_FROM <= ALONE_MAX) results.api_alone_ramp = ramp;
    const figuresOf = (stage: Stage) => ({
      per_second: Math.round(stage.perSecond),
      p50_ms: Number(stage.p50.toFixed(2)),
      p99_ms: Number(stage.p99.toFixed(2)),
      ok: stage.ok,
      sent: stage.sent,
      ...(stage.cores ? { cores: stage.cores } : {}),
    });
    const met = (stage: Stage) => stage.ok === stage.sent && stage.p99 <= P99_LIMIT_MS;
    worker.kill('SIGSTOP');
    try {
      const next = (rate: number) => Math.max(rate + 1, Math.round(rate * ALONE_FACTOR));
      for (let rate = ALONE_FROM; rate <= ALONE_MAX; rate = next(rate)) {
        const count = Math.round(rate * SECONDS);
        const orders = await paidOrders(Math.min(ALONE_ORDERS, Math.round(count * 0.8)));
        const notifications = withDuplicates(orders, count);
        // BENCH_ROUNDS stages of each, alternated, as at the first rate: one stall of the shared
        // cores in one stage would otherwise decide a p99 of 25 ms on its own.
        const bareStages: Stage[] = [];
        const aloneStages: Stage[] = [];
        const storedStages: Stage[] = [];
        const unflushedStages: Stage[] = [];
        // Each measured stage right after the same load on its contender, not counted, as at the
        // first rate: the worker is paused, so the warming load is these notifications again (a
        // repeat costs the api the same INSERT) and nothing waits for their orders.
        const warmNotifications = notifications.slice(0, Math.round(rate * REWARM_SECONDS));
        const measured = async (url: string, answering?: ChildProcess) => {
          if (warmNotifications.length > 0) await fire(url, rate, warmNotifications);
          return fire(url, rate, notifications, answering);
        };
        const fireBare = async () =>
          bareStages.push(await measured(`http://127.0.0.1:${barePort}/ipn`, bareRoute));
        const fireApi = async () =>
          aloneStages.push(await measured(`${api}/v1/ipn/${secret}`, apiProcess));
        // The floor's store-and-acknowledge route: what storing before the answer costs alone.
        const fireStored = async () =>
          storedStages.push(await measured(`${floorUrl}/stored`, floor));
        // The same, its commit not waiting for the disk: what of the tail the flush is.
        const fireUnflushed = async () =>
          unflushedStages.push(await measured(`${floorUrl}/unflushed`, floor));
        const contenders = floor
          ? [fireBare, fireApi, fireStored, fireUnflushed]
          : [fireBare, fireApi];
        for (let round = 0; round < ROUNDS; round += 1) {
          for (const run of round % 2 === 0 ? contenders : [...contenders].reverse()) {
            await run();
          }
        }
        const bare = medianStage(bareStages);
        const alone = medianStage(aloneStages);
        const stored = storedStages.length > 0 ? medianStage(storedStages) : null;
        const unflushed = unflushedStages.length > 0 ? medianStage(unflushedStages) : null;
        (results.api_alone as Record<string, unknown>[]).push({
          rate,
          ...figuresOf(alone),
          bare_route: figuresOf(bare),
          ...(stored ? { stored_floor: figuresOf(stored) } : {}),
          ...(unflushed ? { unflushed_floor: figuresOf(unflushed) } : {}),
        });
        lines.push(
          `${String(rate).padStart(5)}/s | api alone ${alone.perSecond.toFixed(0).padStart(5)}/s ` +
            `p50 ${alone.p50.toFixed(1).padStart(6)} p99 ${alone.p99.toFixed(1).padStart(6)} ms ` +
            `ok ${alone.ok}/${alone.sent} (worker paused) | bare ${bare.perSecond.toFixed(0).padStart(5)}/s ` +
            `p50 ${bare.p50.toFixed(1).padStart(5)} p99 ${bare.p99.toFixed(1).padStart(5)} ms` +
            (stored
              ? ` | floor storing ${stored.perSecond.toFixed(0).padStart(5)}/s ` +
                `p50 ${stored.p50.toFixed(1).padStart(5)} p99 ${stored.p99.toFixed(1).padStart(5)} ms`
              : '') +
            (unflushed
              ? ` | unflushed ${unflushed.perSecond.toFixed(0).padStart(5)}/s ` +
                `p99 ${unflushed.p99.toFixed(1).padStart(5)} ms`
              : ''),
        );
        process.stdout.write(`${lines[lines.length - 1]}\n`);
        missed = met(bare) ? 0 : missed + 1;
        if (missed >= ALONE_MISSES) {
          ramp.capped = false;
          break;
        }
      }
    } finally {
      worker.kill('SIGCONT');
    }
    process.stdout.write(`\n${perOperation.join('\n')}\n`);
    process.stdout.write(`${ratioLines('ipn', results).join('\n')}\n`);
    recorded = results;
    profiling.recordRun(results);
    process.stdout.write(
      `\nIPN acknowledgements, ${SECONDS} s per rate, ${Math.round(DUPLICATES * 100)}% duplicates, open loop (latency from the planned send)\n${lines.join('\n')}\n`,
    );
  } finally {
    await processes.stop();
    await db.end().catch(() => undefined);
    await stores.remove();
  }
  if (recorded) await profiling.recordProfile(recorded, SECONDS);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    processes.signal('SIGKILL');
    process.exit(1);
  },
);

/** A ramp setting from the environment: a number of at least `least`, or the run stops at once. */
function rampSetting(name: string, fallback: number, least: number): number {
  const text = process.env[name];
  const value = text === undefined || text === '' ? fallback : Number(text);
  if (!Number.isFinite(value) || value < least) {
    throw new Error(`${name} must be a number of at least ${least} (got ${text})`);
  }
  return value;
}
