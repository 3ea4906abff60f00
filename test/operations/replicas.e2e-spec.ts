import { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { loadServiceConfig } from '@app/config';
import { closeQueueConnection, queueConnectionFor, queueKeyPrefix, QUEUES } from '@app/queues';
import { hostedBody } from '../checkout/support';
import { isReady, startAppProcess, stopAll } from '../support/app-processes';
import { ownTestDatabase } from '../support/database';
import { LocalRedisServer, redisForTest } from '../support/redis-servers';
import { RunningSandbox, SANDBOX_CREDENTIALS, startSandbox } from '../support/sandbox';
import { freePorts, waitFor } from '../support/service';
import { currentTestRun } from '../support/test-servers';

/**
 * Several replicas on one database and one queue: 2 api and 3 worker processes. Checkouts go to
 * both apis, every payment is notified to both (a duplicate each), one worker is SIGKILLed while
 * the notifications are verified, and still: every order final, each completed once, every
 * acknowledged notification stored once per delivery, one token login and one IPN registration
 * for all the processes together; then orders nobody notifies are polled once each (the three
 * workers' sweeps split them) and the nightly reconcile is scheduled once. On both queue
 * backends; without a Redis on the machine the Redis variant starts a redis-server of its own.
 */
const ORDERS = 60;
const UNNOTIFIED = 15;
/** Seconds after its creation an order nobody notified is first looked up; then not for 10 min. */
const FIRST_POLL_SECONDS = 10;

async function replicasRun(backend: 'redis' | 'postgres'): Promise<void> {
  const own = await ownTestDatabase(`replicas_${backend}`);
  const sandbox: RunningSandbox = await startSandbox();
  const processes: ChildProcess[] = [];
  const dataSource: DataSource = own.dataSource;
  let redis: LocalRedisServer | undefined;
  try {
    if (backend === 'redis') redis = await redisForTest();
    // The gateway's own deliveries are dropped: the test delivers each notification to both apis.
    await sandbox.control.notifications('drop');
    // All five at once: a port found after the apis start could be one an api has not bound yet.
    const [apiPorts, workerPorts] = await freePorts(5).then((ports) => [
      ports.slice(0, 2),
      ports.slice(2),
    ]);
    const apis = apiPorts.map((port) => `http://127.0.0.1:${port}`);
    const shopKey = `shop_${randomBytes(10).toString('hex')}`;
    const ipnSecret = `ipn_${randomBytes(8).toString('hex')}`;
    const env: Record<string, string> = {
      DATABASE_URL: own.url,
      QUEUE_BACKEND: backend,
      QUEUE_PREFIX: `${currentTestRun().queuePrefix}_replicas_${backend}`,
      PESAPAL_BASE_URL: sandbox.baseUrl,
      PESAPAL_CONSUMER_KEY: SANDBOX_CREDENTIALS.consumerKey,
      PESAPAL_CONSUMER_SECRET: SANDBOX_CREDENTIALS.consumerSecret,
      // One public address for both, as behind a load balancer.
      PUBLIC_BASE_URL: apis[0],
      SHOP_API_KEYS: `replicas:${shopKey}`,
      IPN_PATH_SECRET: ipnSecret,
      ...(redis ? { REDIS_URL: redis.url } : {}),
      POLL_SCHEDULE_SECONDS: `${FIRST_POLL_SECONDS},600`,
      SWEEP_INTERVAL_MS: '500',
      WORKER_NICE: '0',
      // The killed worker's jobs come back after their lock lapses: seconds here, not half a minute.
      JOB_LOCK_MS: '5000',
      // Five apps on one PostgreSQL (100 connections), the workers' queues on it too (on
      // BullMQ's PostgreSQL backend each queue holds connections of its own in every worker):
      // small pools, so the run's connections stay under the server's limit.
      DATABASE_POOL_SIZE: '4',
      QUEUE_DATABASE_POOL_SIZE: '3',
      WORKER_DATABASE_POOL_SIZE: '2',
      LOG_LEVEL: 'info',
    };
    for (const port of apiPorts)
      processes.push(startAppProcess('api', { ...env, PORT: String(port) }));
    // One worker at a time: a worker opening its queues on BullMQ's PostgreSQL backend holds
    // more connections for a moment than it keeps, and three at once would pass the limit.
    const workers = [];
    for (const port of workerPorts) {
      const worker = startAppProcess('worker', {
        ...env,
        WORKER_PORT: String(port),
        RUN_MIGRATIONS: 'false',
      });
      processes.push(worker);
      workers.push(worker);
      await waitFor('a worker ready', () => isReady(`http://127.0.0.1:${port}`), 90_000, 250);
    }
    await waitFor(
      'two apis and three workers ready',
      async () => {
        const urls = [...apis, ...workerPorts.map((port) => `http://127.0.0.1:${port}`)];
        return (await Promise.all(urls.map(isReady))).every(Boolean) || null;
      },
      90_000,
      250,
    );

    // Checkouts, alternating between the apis, then paid at the gateway.
    const orders: { reference: string; trackingId: string }[] = [];
    for (let start = 0; start < ORDERS; start += 20) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(20, ORDERS - start) }, async (_, offset) => {
          const body = hostedBody();
          const answer = await request(apis[(start + offset) % 2])
            .post('/v1/checkouts')
            .set({ Authorization: `Bearer ${shopKey}` })
            .send(body);
          expect(answer.status).toBe(201);
          return { reference: String(body.reference), trackingId: answer.body.order_tracking_id };
        }),
      );
      orders.push(...batch);
    }
    for (const order of orders) await sandbox.control.settle(order.trackingId, 'completed', 'card');

    // Every payment notified to both apis; a worker dies halfway through.
    let acknowledged = 0;
    for (const [index, order] of orders.entries()) {
      if (index === ORDERS / 2) workers[0].kill('SIGKILL');
      const answers = await Promise.all(
        apis.map((api) =>
          request(api).post(`/v1/ipn/${ipnSecret}`).send({
            OrderTrackingId: order.trackingId,
            OrderMerchantReference: order.reference,
            OrderNotificationType: 'IPNCHANGE',
          }),
        ),
      );
      for (const answer of answers) {
        if (answer.status === 200 && answer.body.status === 200) acknowledged += 1;
      }
    }
    expect(acknowledged).toBe(ORDERS * 2);

    const references = orders.map((order) => order.reference);
    await waitFor(
      'every order completed',
      async () => {
        const [row] = (await dataSource.query(
          `SELECT count(*)::int AS n FROM orders WHERE merchant_reference = ANY($1) AND status = 'completed'`,
          [references],
        )) as { n: number }[];
        return row.n === ORDERS || null;
      },
      60_000,
      250,
    );
    const [events] = (await dataSource.query(
      `SELECT count(*)::int AS total, count(DISTINCT order_id)::int AS orders
         FROM outbox_events WHERE type = 'order.completed'`,
    )) as { total: number; orders: number }[];
    expect(events).toEqual({ total: ORDERS, orders: ORDERS });
    const [stored] = (await dataSource.query(
      `SELECT count(*)::int AS n FROM ipn_notifications`,
    )) as { n: number }[];
    expect(stored.n).toBe(acknowledged);
    await waitFor(
      'every notification verified',
      async () => {
        const [open] = (await dataSource.query(
          `SELECT count(*)::int AS n FROM ipn_notifications WHERE status IN ('received', 'queued', 'unmatched')`,
        )) as { n: number }[];
        return open.n === 0 || null;
      },
      60_000,
      250,
    );
    const { counts } = await sandbox.control.requests();
    // One token and one IPN registration for five processes.
    expect(counts.RequestToken).toBe(1);
    expect(counts.RegisterIPN).toBe(1);
    // Lookups are coalesced per order across the workers: at most two per order.
    expect(counts.GetTransactionStatus).toBeLessThanOrEqual(ORDERS * 2);

    // Orders nobody pays or notifies: every worker sweeps every 500 ms, yet each due poll is
    // taken by one of them and looks the order up once.
    await sandbox.control.resetRequests();
    const unnotified = await Promise.all(
      Array.from({ length: UNNOTIFIED }, async (_, index) => {
        const body = hostedBody();
        const answer = await request(apis[index % 2])
          .post('/v1/checkouts')
          .set({ Authorization: `Bearer ${shopKey}` })
          .send(body);
        expect(answer.status).toBe(201);
        return String(body.reference);
      }),
    );
    const pollsOf = async () =>
      (await dataSource.query(
        `SELECT poll_attempts, order_tracking_id FROM orders WHERE merchant_reference = ANY($1)`,
        [unnotified],
      )) as { poll_attempts: number; order_tracking_id: string }[];
    await waitFor(
      'every unnotified order polled',
      async () => (await pollsOf()).every((row) => row.poll_attempts >= 1) || null,
      (FIRST_POLL_SECONDS + 30) * 1000,
      250,
    );
    // A few more sweeps of every worker: nothing more is due.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await pollsOf()).map((row) => row.poll_attempts)).toEqual(unnotified.map(() => 1));
    // Counted per order: a verification the killed worker left behind may still be retried after
    // the counts were reset, and is a lookup of another order.
    const lookedUp = new Map((await pollsOf()).map((row) => [row.order_tracking_id, 0]));
    for (const call of (await sandbox.control.requests()).recent) {
      if (call.operation !== 'GetTransactionStatus') continue;
      const id = new URL(call.path, 'http://sandbox').searchParams.get('orderTrackingId') ?? '';
      if (lookedUp.has(id)) lookedUp.set(id, (lookedUp.get(id) ?? 0) + 1);
    }
    expect([...lookedUp.values()]).toEqual(unnotified.map(() => 1));

    // Every worker asks for the nightly reconcile and the retention pass at start; the queue holds
    // one schedule of each and one next run of each.
    const config = loadServiceConfig({ ...process.env, ...env });
    const connection = queueConnectionFor(config);
    const reconciliation = new Queue(QUEUES.reconciliation, {
      connection,
      prefix: queueKeyPrefix(config, QUEUES.reconciliation),
    });
    try {
      const schedulers = await reconciliation.getJobSchedulers();
      expect(schedulers.map((scheduler) => scheduler.key).sort()).toEqual([
        'activity-totals',
        'nightly-reconcile',
        'operational-records-retention',
      ]);
      // One next run of each, however many workers registered them (a run under way has its
      // next one queued already: only the waiting and delayed ones are counted).
      const next = await reconciliation.getJobs(['delayed', 'waiting']);
      const runsOf = (name: string) => next.filter((job) => job.name === name).length;
      expect(
        ['reconcile', 'prune-operational-records', 'sum-activity'].map((name) => runsOf(name)),
      ).toEqual([1, 1, 1]);
    } finally {
      await reconciliation.close();
      closeQueueConnection(connection);
    }
  } finally {
    await stopAll(processes);
    await sandbox.close();
    await own.drop();
    await redis?.stop();
  }
}

describe('two apis and three workers on one database and queue', () => {
  it(
    'queues on Redis: nothing lost, nothing doubled, one of each shared task',
    () => replicasRun('redis'),
    180_000,
  );
  it(
    'queues on PostgreSQL: nothing lost, nothing doubled, one of each shared task',
    () => replicasRun('postgres'),
    180_000,
  );
});
