import { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { loadServiceConfig } from '@app/config';
import {
  closeQueueConnection,
  postgresQueueSchema,
  queueConnectionFor,
  queueKeyPrefix,
  QUEUE_NAMES,
  QUEUES,
} from '@app/queues';
import { hostedBody } from '../checkout/support';
import { isReady, startAppProcess, stopAll } from '../support/app-processes';
import { ownTestDatabase } from '../support/database';
import { LocalRedisServer, startRedisServer } from '../support/redis-servers';
import { RunningSandbox, SANDBOX_CREDENTIALS, startSandbox } from '../support/sandbox';
import { freePorts, waitFor } from '../support/service';
import { currentTestRun } from '../support/test-servers';

/**
 * The queues' store comes back empty while the service runs. On Redis (a redis-server of the
 * test's own, never the run's) it is flushed while payments flow, then restarted empty while
 * idle; on BullMQ's PostgreSQL backend (the pass without servers) its tables are emptied, twice.
 * One api and two worker processes. Without a restart every verification, poll, refund follow-up
 * and schedule comes back from PostgreSQL well within the claims' lease (two minutes here),
 * nothing is applied or delivered twice, one worker says so in one line and a counter, and each
 * token refresh is one login for the three processes.
 */
const PAID = 24;
const QUIET = 12;
const AFTER = 8;
/** A lease of two minutes (JOB_LOCK_MS × 2): anything back sooner was re-derived, not waited out. */
const JOB_LOCK_MS = 60_000;
const LEASE_MS = JOB_LOCK_MS * 2;
/** The backlog's pace: jobs wait in the queues (and are lost with them) for seconds. */
const LOOKUPS_PER_SECOND = 5;
/** Tokens refreshed every ~10 s (in the last half of their life): several logins in the test. */
const TOKEN_LIFETIME_SECONDS = 20;
const RECOVERY_LINE = 'queue store came back empty';
const METRICS_TOKEN = 'redis-wipe-metrics-token';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface WorkerProcess {
  child: ChildProcess;
  url: string;
  /** Its log file (in the run's audit folder: the secret audit reads it too). */
  logFile: string;
}

interface RecoveryLine {
  time: number;
  /** From the mark found missing to every lost job re-derived. */
  ms: number;
  queues: string[];
  recovered: { what: string; count: number }[];
}

/** A worker's log lines that announce a recovery. */
function recoveriesOf(worker: WorkerProcess): RecoveryLine[] {
  if (!existsSync(worker.logFile)) return [];
  return readFileSync(worker.logFile, 'utf8')
    .split('\n')
    .filter((line) => line.includes(RECOVERY_LINE))
    .map((line) => JSON.parse(line) as RecoveryLine);
}

/** The shop's webhook endpoint: every delivery's webhook-id. */
async function webhookReceiver(): Promise<{ server: Server; url: string; ids: string[] }> {
  const ids: string[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    req.resume();
    req.on('end', () => {
      ids.push(String(req.headers['webhook-id']));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/webhooks`, ids };
}

/** A worker's queue_store_emptied_total, by queue. */
async function emptiedCounts(worker: WorkerProcess): Promise<Record<string, number>> {
  const answer = await request(worker.url)
    .get('/metrics')
    .set('Authorization', `Bearer ${METRICS_TOKEN}`);
  expect(answer.status).toBe(200);
  const families = parsePrometheusTextFormat(answer.text) as {
    name: string;
    metrics: { value?: string; labels?: Record<string, string> }[];
  }[];
  const family = families.find((f) => f.name === 'queue_store_emptied_total');
  return Object.fromEntries(
    (family?.metrics ?? []).map((m) => [m.labels?.queue ?? '', Number(m.value ?? 0)]),
  );
}

describe('the queues come back empty while the service runs', () => {
  const backend = currentTestRun().queueBackend;
  const queuePrefix = `${currentTestRun().queuePrefix}_wipe`;
  const shopKey = `shop_${randomBytes(10).toString('hex')}`;
  const adminKey = `admin_${randomBytes(10).toString('hex')}`;
  const ipnSecret = `ipn_${randomBytes(8).toString('hex')}`;
  let own: Awaited<ReturnType<typeof ownTestDatabase>>;
  let dataSource: DataSource;
  let sandbox: RunningSandbox;
  let redis: LocalRedisServer | undefined;
  let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
  const processes: ChildProcess[] = [];
  const workers: WorkerProcess[] = [];
  let api = '';
  let env: Record<string, string> = {};

  /** Empties the queues' store as an operator's bad day would. */
  async function wipe(how: 'flush' | 'restart'): Promise<void> {
    if (redis) {
      if (how === 'flush') {
        const client = new Redis(redis.url);
        await client.flushall();
        client.disconnect();
      } else {
        const port = Number(new URL(redis.url).port);
        await redis.stop();
        redis = await startRedisServer(port);
      }
      return;
    }
    // BullMQ's PostgreSQL backend: its tables emptied (its migrations' ledger kept).
    const schema = postgresQueueSchema(queuePrefix);
    const tables = ['job', 'job_log', 'job_dependency', 'event', 'metrics', 'rate_limit'];
    tables.push('dedup', 'dedup_next', 'scheduler', 'meta');
    const truncate = `TRUNCATE ${tables.map((t) => `"${schema}".${t}`).join(', ')}`;
    // Its locks, taken table by table, can deadlock with the workers' statements: PostgreSQL
    // then cancels one side, and the operator's TRUNCATE is simply run again.
    for (let attempt = 1; ; attempt += 1) {
      try {
        await dataSource.query(truncate);
        return;
      } catch (error) {
        const code = (error as { driverError?: { code?: string } }).driverError?.code;
        if (code !== '40P01' || attempt === 5) throw error;
      }
    }
  }

  /** `read` of the service's queue `name`, through a connection of its own, closed after. */
  async function fromQueue<T>(
    name: (typeof QUEUES)[keyof typeof QUEUES],
    read: (queue: Queue) => Promise<T>,
  ): Promise<T> {
    const config = loadServiceConfig({ ...process.env, ...env });
    const connection = queueConnectionFor(config);
    const queue = new Queue(name, { connection, prefix: queueKeyPrefix(config, name) });
    try {
      return await read(queue);
    } finally {
      await queue.close();
      closeQueueConnection(connection);
    }
  }

  const schedules = (): Promise<string[]> =>
    fromQueue(QUEUES.reconciliation, async (queue) =>
      (await queue.getJobSchedulers()).map((scheduler) => scheduler.key).sort(),
    );

  /**
   * Verification jobs the notifications queue holds, not finished: waiting, or taken and waiting
   * in their worker for the lookups' rate limit.
   */
  const queuedVerifications = (): Promise<number> =>
    fromQueue(QUEUES.notificationBatches, async (queue) => {
      const counts = await queue.getJobCounts('active', 'wait', 'delayed', 'prioritized');
      return (
        (counts.active ?? 0) +
        (counts.wait ?? 0) +
        (counts.delayed ?? 0) +
        (counts.prioritized ?? 0)
      );
    });

  /** Merchant events not yet handed to the endpoint, or not yet delivered to it. */
  const UNDELIVERED = `SELECT count(*)::int AS n FROM outbox_events WHERE delivered_at IS NULL`;
  const count = async (sql: string, params: unknown[] = []): Promise<number> =>
    ((await dataSource.query(sql, params)) as { n: number }[])[0].n;
  /** Both workers' recovery lines, in the order they were written. */
  const recoveryLines = (): RecoveryLine[] =>
    workers.flatMap(recoveriesOf).sort((a, b) => a.time - b.time);
  /**
   * The recovery of one wipe, from the lines written since `from`: each queue is recovered by the
   * one worker that plants its mark again, so two workers may each say they recovered some of
   * the queues; together every queue once, and what each re-derived, summed.
   */
  const recoveredSince = (from: number) => {
    const lines = recoveryLines().slice(from);
    const queues = lines.flatMap((line) => [...line.queues]).sort();
    const counts: Record<string, number> = {};
    for (const line of lines)
      for (const { what, count } of line.recovered) counts[what] = (counts[what] ?? 0) + count;
    return { lines, queues, counts };
  };
  const emptiedTotals = async (): Promise<number[]> => {
    const counters = await Promise.all(workers.map(emptiedCounts));
    return QUEUE_NAMES.map((queue) => counters.reduce((sum, c) => sum + (c[queue] ?? 0), 0));
  };

  beforeAll(async () => {
    own = await ownTestDatabase('redis_wipe');
    dataSource = own.dataSource;
    sandbox = await startSandbox({ tokenLifetimeSeconds: TOKEN_LIFETIME_SECONDS });
    // The test notifies the api itself, each payment once.
    await sandbox.control.notifications('drop');
    if (backend === 'redis') redis = await startRedisServer();
    receiver = await webhookReceiver();
    const [apiPort, ...workerPorts] = await freePorts(3);
    api = `http://127.0.0.1:${apiPort}`;
    env = {
      DATABASE_URL: own.url,
      QUEUE_BACKEND: backend,
      QUEUE_PREFIX: queuePrefix,
      ...(redis ? { REDIS_URL: redis.url } : {}),
      PESAPAL_BASE_URL: sandbox.baseUrl,
      PESAPAL_CONSUMER_KEY: SANDBOX_CREDENTIALS.consumerKey,
      PESAPAL_CONSUMER_SECRET: SANDBOX_CREDENTIALS.consumerSecret,
      PUBLIC_BASE_URL: api,
      SHOP_API_KEYS: `wipe:${shopKey}`,
      ADMIN_API_KEYS: `wipe-admin:${adminKey}`,
      IPN_PATH_SECRET: ipnSecret,
      ORDER_WEBHOOK_URL: receiver.url,
      ORDER_WEBHOOK_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      // An order nobody notifies is looked up 4 s after its creation, then not for 10 minutes.
      POLL_SCHEDULE_SECONDS: '4,600',
      SWEEP_INTERVAL_MS: '500',
      GATEWAY_LOOKUPS_PER_SECOND: String(LOOKUPS_PER_SECOND),
      JOB_LOCK_MS: String(JOB_LOCK_MS),
      METRICS_TOKEN,
      WORKER_NICE: '0',
      DATABASE_POOL_SIZE: '6',
      WORKER_DATABASE_POOL_SIZE: '3',
      LOG_LEVEL: 'info',
    };
    processes.push(startAppProcess('api', { ...env, PORT: String(apiPort) }));
    for (const port of workerPorts) {
      const logFile = join(currentTestRun().auditDir, `redis-wipe-worker-${port}.ndjson`);
      const workerEnv = {
        ...env,
        WORKER_PORT: String(port),
        RUN_MIGRATIONS: 'false',
        LOG_FILE: logFile,
      };
      const child = startAppProcess('worker', workerEnv);
      processes.push(child);
      workers.push({ child, url: `http://127.0.0.1:${port}`, logFile });
    }
    await waitFor(
      'the api and two workers ready',
      async () =>
        (await Promise.all([api, ...workers.map((w) => w.url)].map(isReady))).every(Boolean),
      90_000,
      250,
    );
    await waitFor('the schedules registered', async () => (await schedules()).length === 3);
  }, 120_000);

  afterAll(async () => {
    // SIGKILL for a process not ended within 15 s.
    await stopAll(processes, { killAfterMs: 15_000 });
    await sandbox?.close();
    await new Promise((resolve) => receiver?.server.close(resolve));
    await redis?.stop();
    await own?.drop();
  }, 60_000);

  const checkout = async () => {
    const body = hostedBody();
    const answer = await request(api)
      .post('/v1/checkouts')
      .set({ Authorization: `Bearer ${shopKey}` })
      .send(body);
    expect(answer.status).toBe(201);
    return { reference: String(body.reference), trackingId: String(answer.body.order_tracking_id) };
  };
  const notify = async (order: { reference: string; trackingId: string }) => {
    const answer = await request(api).post(`/v1/ipn/${ipnSecret}`).send({
      OrderTrackingId: order.trackingId,
      OrderMerchantReference: order.reference,
      OrderNotificationType: 'IPNCHANGE',
    });
    expect([answer.status, answer.body.status]).toEqual([200, 200]);
  };
  const paying = async () => {
    const order = await checkout();
    await sandbox.control.settle(order.trackingId, 'completed', 'card');
    await notify(order);
    return order;
  };
  const statusOf = async (reference: string) =>
    (
      (await dataSource.query(`SELECT status FROM orders WHERE merchant_reference = $1`, [
        reference,
      ])) as { status: string }[]
    )[0]?.status;
  /** Orders a sweep claimed (for the lease, two minutes) whose poll has not run yet. */
  const claimedPolls = (references: string[]) =>
    count(
      `SELECT count(*)::int AS n FROM orders
        WHERE merchant_reference = ANY($1) AND next_poll_at > now() + interval '90 seconds'`,
      [references],
    );

  it('flushed while payments flow: every job re-derived, nothing lost or doubled, the schedules back, one login per token', async () => {
    // A paid order, refunded below: the refund is followed up until the gateway shows it reversed.
    const refunded = await checkout();
    await sandbox.control.settle(refunded.trackingId, 'completed', 'card');
    await notify(refunded);
    await waitFor(
      'the refunded order paid',
      async () => (await statusOf(refunded.reference)) === 'completed',
    );

    // Payments that are notified, and others paid silently that only polls find.
    const paid = await Promise.all(Array.from({ length: PAID }, checkout));
    const quiet = await Promise.all(Array.from({ length: QUIET }, checkout));
    for (const order of [...paid, ...quiet]) {
      await sandbox.control.settle(order.trackingId, 'completed', 'card');
    }
    // Their first polls come due together: claimed and queued behind the lookups' rate limit.
    await waitFor(
      'polls claimed and queued',
      async () => (await claimedPolls(quiet.map((o) => o.reference))) >= QUIET / 2,
      20_000,
      50,
    );
    const refund = await request(api)
      .post(`/v1/admin/orders/${refunded.reference}/refunds`)
      .set({ Authorization: `Bearer ${adminKey}` })
      .send({ amount: '1500.00', reason: 'customer returned the coffee' });
    expect([refund.status, refund.body.refund?.status]).toEqual([201, 'accepted']);
    await sandbox.control.settle(refunded.trackingId, 'reversed');
    await Promise.all(paid.map(notify));
    await waitFor(
      'notifications queued and the refund follow-up claimed',
      async () =>
        // Handed over (their jobs queued from the api's signal) or claimed: not due for now,
        // and their jobs in the store (not only in a relay's memory), so the wipe loses them.
        (await count(
          `SELECT count(*)::int AS n FROM ipn_notifications
            WHERE status IN ('received', 'queued') AND next_attempt_at > now()`,
        )) >=
          PAID / 2 &&
        (await queuedVerifications()) > 0 &&
        (await claimedPolls([refunded.reference])) === 1,
      20_000,
      50,
    );
    // Each queue found empty once by this wipe (a retry of this test counts from its own).
    const emptiedBefore = await emptiedTotals();

    // The gateway's logins, sampled from the wipe on.
    const loginsAtWipe = (await sandbox.control.requests()).counts.RequestToken;
    const logins: { at: number; count: number }[] = [{ at: Date.now(), count: loginsAtWipe }];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const { counts } = await sandbox.control.requests();
        logins.push({ at: Date.now(), count: counts.RequestToken });
        await sleep(100);
      }
    })();
    // The recovery lines of this wipe: a second run of this test reads none of the first's.
    const linesBeforeWipe = recoveryLines().length;
    try {
      await wipe('flush');
      const wipedAt = Date.now();

      // Payments go on.
      const after = await Promise.all(Array.from({ length: AFTER }, paying));

      const everyOrder = [...paid, ...quiet, ...after].map((o) => o.reference);
      await waitFor(
        'the backlog back to normal',
        async () => {
          const completed = await count(
            `SELECT count(*)::int AS n FROM orders
            WHERE merchant_reference = ANY($1) AND status = 'completed'`,
            [everyOrder],
          );
          const open = await count(
            `SELECT count(*)::int AS n FROM ipn_notifications
            WHERE status IN ('received', 'queued', 'unmatched')`,
          );
          const undelivered = await count(UNDELIVERED);
          return (
            completed === everyOrder.length &&
            open === 0 &&
            undelivered === 0 &&
            (await statusOf(refunded.reference)) === 'reversed'
          );
        },
        // A third of the claims' lease: only re-deriving the lost jobs brings them back this soon.
        LEASE_MS / 3,
        100,
      );
      const recoveryMs = Date.now() - wipedAt;
      const lines = recoveryLines();
      console.log(
        `[redis-wipe] ${backend}: backlog (${PAID} notified, ${QUIET} polled, a refund followed up, ${AFTER} paid after the wipe, their webhooks) back to normal ${recoveryMs} ms after the wipe (found and re-derived by one worker in ${lines[0]?.time - wipedAt} ms, of which re-deriving took ${lines[0]?.ms} ms; the rest is the backlog's lookups at ${LOOKUPS_PER_SECOND}/s)`,
      );

      // Each queue was found empty and its lost jobs re-derived once, said in one line by the
      // worker that recovered it.
      const recovered = recoveredSince(linesBeforeWipe);
      expect(recovered.queues).toEqual([...QUEUE_NAMES].sort());
      const countOf = (what: string) => recovered.counts[what];
      expect(countOf('schedules')).toBe(3);
      expect(countOf('notifications')).toBeGreaterThan(0);
      expect(countOf('polls and refund follow-ups')).toBeGreaterThan(0);
      expect(countOf('IPN registrations')).toBe(0);
      expect(await emptiedTotals()).toEqual(emptiedBefore.map((total) => total + 1));
      expect(await schedules()).toEqual([
        'activity-totals',
        'nightly-reconcile',
        'operational-records-retention',
      ]);

      // Every order final once; every notification applied once (one row each, all applied).
      const transitions = (await dataSource.query(
        `SELECT o.merchant_reference AS reference, count(*)::int AS n FROM order_events e
         JOIN orders o ON o.id = e.order_id
        WHERE e.type = 'status_changed' GROUP BY o.merchant_reference`,
      )) as { reference: string; n: number }[];
      const changes = new Map(transitions.map((t) => [t.reference, t.n]));
      expect(everyOrder.filter((reference) => changes.get(reference) !== 1)).toEqual([]);
      // The refunded order: paid, then reversed, once each; its refund reversed.
      expect(changes.get(refunded.reference)).toBe(2);
      expect(await count(`SELECT count(*)::int AS n FROM refunds WHERE status = 'reversed'`)).toBe(
        1,
      );
      expect(
        await count(`SELECT count(*)::int AS n FROM ipn_notifications WHERE status = 'applied'`),
      ).toBe(1 + PAID + AFTER);
      // Each merchant event delivered once, none twice.
      expect(
        await count(
          `SELECT count(DISTINCT order_id)::int AS n FROM outbox_events WHERE type = 'order.completed'`,
        ),
      ).toBe(1 + everyOrder.length);
      expect(
        await count(`SELECT count(*)::int AS n FROM outbox_events WHERE type = 'order.completed'`),
      ).toBe(1 + everyOrder.length);
      expect(
        (
          (await dataSource.query(
            `SELECT e.type FROM outbox_events e JOIN orders o ON o.id = e.order_id
            WHERE o.merchant_reference = $1 ORDER BY e.type`,
            [refunded.reference],
          )) as { type: string }[]
        ).map((row) => row.type),
      ).toEqual(['order.completed', 'order.reversed', 'refund.accepted', 'refund.reversed']);
      const events = await count(`SELECT count(*)::int AS n FROM outbox_events`);
      expect(receiver.ids).toHaveLength(events);
      expect(new Set(receiver.ids).size).toBe(events);

      // The token: each refresh since the wipe was one login for the three processes (they refresh
      // together, every ~10 s here). Payments go on until one has happened, and a while after.
      await waitFor(
        'a token login since the wipe',
        async () => {
          await paying();
          return logins[logins.length - 1].count > loginsAtWipe;
        },
        TOKEN_LIFETIME_SECONDS * 1000,
        200,
      );
      for (let i = 0; i < 10; i += 1) {
        await paying();
        await sleep(300);
      }
    } finally {
      sampling = false;
      await sampler.catch(() => undefined);
    }
    const moves = logins.filter((sample, i) => i > 0 && sample.count !== logins[i - 1].count);
    expect(moves.length).toBeGreaterThan(0);
    for (const [i, move] of moves.entries()) {
      const previous = i === 0 ? logins[0] : moves[i - 1];
      // One more login, never two at once, nor one per process a moment apart.
      expect(move.count - previous.count).toBe(1);
      if (i > 0) expect(move.at - previous.at).toBeGreaterThan(TOKEN_LIFETIME_SECONDS * 200);
    }
  }, 150_000);

  it('emptied again while idle (Redis restarted empty): the schedules re-registered, nothing else happens', async () => {
    await waitFor(
      'idle',
      async () =>
        (await count(
          `SELECT count(*)::int AS n FROM ipn_notifications WHERE status IN ('received', 'queued')`,
        )) === 0 &&
        (await count(UNDELIVERED)) === 0 &&
        (await count(`SELECT count(*)::int AS n FROM orders WHERE status = 'pending'`)) === 0,
      30_000,
    );
    const snapshot = async () => ({
      timeline: await count(`SELECT count(*)::int AS n FROM order_events`),
      events: await count(`SELECT count(*)::int AS n FROM outbox_events`),
      deliveries: receiver.ids.length,
      lookups: (await sandbox.control.requests()).counts.GetTransactionStatus,
    });
    const before = await snapshot();
    const linesBefore = recoveryLines().length;
    const totalsBefore = await emptiedTotals();
    await wipe('restart');
    const wipedAt = Date.now();
    await waitFor(
      'the recovery of every queue',
      () => recoveredSince(linesBefore).queues.length >= QUEUE_NAMES.length,
      15_000,
    );
    await waitFor('the schedules back', async () => (await schedules()).length === 3, 10_000);
    console.log(
      `[redis-wipe] ${backend}: idle, the schedules back ${Date.now() - wipedAt} ms after the store came back empty`,
    );
    const recovered = recoveredSince(linesBefore);
    expect(recovered.queues).toEqual([...QUEUE_NAMES].sort());
    expect(recovered.counts).toEqual({
      schedules: 3,
      notifications: 0,
      'polls and refund follow-ups': 0,
      'IPN registrations': 0,
    });
    // A few seconds of sweeps and relays: nothing spurious is looked up, written or delivered.
    await sleep(3_000);
    expect(await snapshot()).toEqual(before);
    expect(await emptiedTotals()).toEqual(totalsBefore.map((total) => total + 1));
  }, 60_000);
});
