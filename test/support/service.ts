/**
 * Boot the whole service inside a test: the sandbox gateway, the api (exactly as main.ts builds
 * it, through createApiApp) and optionally the worker, all in this process over real HTTP.
 *
 *   const service = await startService();                 // sandbox + api
 *   const service = await startService({ worker: true }); // + worker (IPN, polling, webhooks...)
 *   await request(service.apiUrl).post('/v1/checkouts').set(service.shopAuth).send({...});
 *   await service.sandbox.control.settle(orderTrackingId, 'completed');
 *   await service.close();
 *
 * Stable for every team's suites. Rules:
 * - Configuration is read from process.env when the app modules are first loaded, so call
 *   startService ONCE per test file (jest gives each file its own module registry). Suites that
 *   need other settings (e.g. a short PESAPAL_TIMEOUT_MS) go in their own file with `env`.
 * - The api's port is picked before it starts so PUBLIC_BASE_URL (callback and IPN URLs the
 *   sandbox calls) names the api itself.
 * - Database, Redis and queue prefix come from the jest global setup (one per run).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { SandboxConfig } from '@app/config';
import { RunningSandbox, SANDBOX_CREDENTIALS, startSandbox } from './sandbox';
import { createApiUnderContract } from './api-contract';

export interface ServiceOptions {
  /** Also boot apps/worker (BullMQ processors, sweeps) on a free port. Default false. */
  worker?: boolean;
  /** Extra or overriding environment variables (applied last), e.g. { PESAPAL_TIMEOUT_MS: '800' }. */
  env?: Record<string, string>;
  /** The api's port, when something must know its URL before it starts (an identity provider). */
  port?: number;
  /** Sandbox overrides, passed to startSandbox (e.g. { pushDelayMs: 50 }). */
  sandbox?: Partial<SandboxConfig>;
}

export interface RunningService {
  /** e.g. http://127.0.0.1:41234 (also PUBLIC_BASE_URL). */
  apiUrl: string;
  sandbox: RunningSandbox;
  /** A key from SHOP_API_KEYS (entry "test-shop:<key>"). */
  shopKey: string;
  /** A key from ADMIN_API_KEYS (entry "test-admin:<key>"). */
  adminKey: string;
  /** { Authorization: 'Bearer <shopKey>' } for supertest's .set(). */
  shopAuth: { Authorization: string };
  adminAuth: { Authorization: string };
  /** The environment the apps were built with (secrets included; never log it). */
  env: Record<string, string>;
  apiApp: NestFastifyApplication;
  workerApp?: NestFastifyApplication;
  /** Stops worker, api and sandbox, in that order. */
  close(): Promise<void>;
}

/**
 * `count` distinct ports nobody listens on right now, for processes started together: each is held
 * until all are found, so no two are the same and none is one a sibling is about to bind.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((done) => server.close(done))));
  return ports;
}

/** A port nobody listens on right now (the api must know its own URL before it starts). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function startService(options: ServiceOptions = {}): Promise<RunningService> {
  const sandbox = await startSandbox(options.sandbox);
  const port = options.port ?? (await freePort());
  const apiUrl = `http://127.0.0.1:${port}`;
  const shopKey = `shop_test_${randomBytes(12).toString('hex')}`;
  const adminKey = `admin_test_${randomBytes(12).toString('hex')}`;
  const env: Record<string, string> = {
    PORT: String(port),
    WORKER_PORT: '0',
    PESAPAL_BASE_URL: sandbox.baseUrl,
    PESAPAL_CONSUMER_KEY: SANDBOX_CREDENTIALS.consumerKey,
    PESAPAL_CONSUMER_SECRET: SANDBOX_CREDENTIALS.consumerSecret,
    PESAPAL_TIMEOUT_MS: '5000',
    PUBLIC_BASE_URL: apiUrl,
    SHOP_API_KEYS: `test-shop:${shopKey}`,
    ADMIN_API_KEYS: `test-admin:${adminKey}`,
    IPN_PATH_SECRET: `ipn_${randomBytes(8).toString('hex')}`,
    POLL_SCHEDULE_SECONDS: '1,2,5',
    SWEEP_INTERVAL_MS: '250',
    RUN_MIGRATIONS: 'false',
    ...options.env,
  };
  Object.assign(process.env, env);

  let apiApp: NestFastifyApplication | undefined;
  let workerApp: NestFastifyApplication | undefined;
  try {
    // Loaded only now: the app modules read their configuration from process.env on import.
    apiApp = await createApiUnderContract();
    await apiApp.listen(port, '127.0.0.1');
    if (options.worker) {
      const { createFastifyApp } = await import('@app/common');
      const { WorkerModule } = await import('../../apps/worker/src/worker.module');
      workerApp = await createFastifyApp(WorkerModule);
      await workerApp.listen(0, '127.0.0.1');
    }
  } catch (error) {
    await workerApp?.close();
    await apiApp?.close();
    await sandbox.close();
    throw error;
  }

  const api = apiApp;
  const worker = workerApp;
  return {
    apiUrl,
    sandbox,
    shopKey,
    adminKey,
    shopAuth: { Authorization: `Bearer ${shopKey}` },
    adminAuth: { Authorization: `Bearer ${adminKey}` },
    env,
    apiApp: api,
    workerApp: worker,
    close: async () => {
      await closeWithin('worker', worker);
      await closeWithin('api', api);
      await sandbox.close();
    },
  };
}

/**
 * Teardown must not hang a suite whose tests are done: an app that has not closed after 10 s
 * (an in-flight request still waiting, seen once on a loaded machine) is reported and left.
 */
async function closeWithin(name: string, app: { close(): Promise<void> } | undefined) {
  if (!app) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), 10_000);
  });
  const outcome = await Promise.race([app.close().then(() => 'closed' as const), late]);
  clearTimeout(timer);
  if (outcome === 'late')
    process.stderr.write(`test teardown: the ${name} did not close within 10 s\n`);
}

/** Polls `probe` until it returns a truthy value; fails with `what` after the timeout. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 15_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
