import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { hostedBody, pushBody } from '../checkout/support';
import {
  Release,
  ReleaseProcess,
  releaseFromGit,
  THIS_RELEASE_DIR,
  thisRelease,
} from '../support/releases';
import { RunningSandbox, SANDBOX_CREDENTIALS, startSandbox } from '../support/sandbox';
import { freePorts, waitFor } from '../support/service';
import { currentTestRun } from '../support/test-servers';

/**
 * An upgrade under load, as `docs/deployment.md` rolls one: the previous release (built from git:
 * UPGRADE_FROM, by default the commit before this tree's, so CI on main tries each commit against
 * the one before it) runs two api and two worker processes under steady checkouts and
 * notifications; this release's migrations run while it serves; this release's processes start
 * beside the old ones; then the old ones stop one at a time with SIGTERM, as Kubernetes stops a
 * pod. Every checkout answered, every notification acknowledged, every order completed once, and
 * no 5xx but a stopping process's 503 (retried elsewhere, as a load balancer or the shop client
 * does).
 */
/** Two loaders keep payments in every step (hundreds in all); more only load the machine. */
const LOADERS = 2;
const HEADROOM_MS = 1_500;

function previousRevision(): string {
  if (process.env.UPGRADE_FROM) return process.env.UPGRADE_FROM;
  // A tree with changes not yet committed is the next release of HEAD; a clean one, of HEAD~1.
  const changed = execFileSync('git', ['-C', THIS_RELEASE_DIR, 'status', '--porcelain', '-uno'], {
    encoding: 'utf8',
  }).trim();
  return changed ? 'HEAD' : 'HEAD~1';
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Refusal {
  api: string;
  what: string;
  path: string;
}

/** The load balancer's view: which apis take requests, and which were told to stop. */
class Rotation {
  private live: string[] = [];
  readonly stopping = new Set<string>();
  private turn = 0;
  add(...apis: string[]): void {
    this.live.push(...apis);
  }
  remove(api: string): void {
    this.live = this.live.filter((live) => live !== api);
  }
  next(): string {
    this.turn += 1;
    return this.live[this.turn % this.live.length];
  }
}

/**
 * Steady payments: each loader takes a checkout (hosted or mobile money, with an Idempotency-Key),
 * has the gateway settle it paid, and notifies the api as the gateway does, one after another.
 * A 503 or a refused connection is retried on another api, as a load balancer or the shop client
 * would; each is kept, with the api that gave it, to be judged at the end.
 */
class SteadyPayments {
  readonly orders: { reference: string; trackingId: string; kind: 'hosted' | 'push' }[] = [];
  readonly refusals: Refusal[] = [];
  /** Answers no retry may hide: a 4xx, a 500, a 503 from an api that was not stopping. */
  readonly unexpected: string[] = [];
  acknowledged = 0;
  private running = true;
  private loops: Promise<void>[] = [];

  constructor(
    private readonly rotation: Rotation,
    private readonly sandbox: RunningSandbox,
    private readonly shopKey: string,
    private readonly ipnSecret: string,
  ) {}

  start(): void {
    this.loops = Array.from({ length: LOADERS }, (_, loader) => this.loop(loader));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async loop(loader: number): Promise<void> {
    let count = 0;
    while (this.running) {
      count += 1;
      try {
        await this.payment(loader === 0 && count % 2 === 0 ? 'push' : 'hosted');
      } catch (error) {
        this.unexpected.push(`payment: ${(error as Error).message}`);
      }
      await sleep(20);
    }
  }

  private async payment(kind: 'hosted' | 'push'): Promise<void> {
    // Phones ending 8 pay (the sandbox's phone enters its PIN); the notification comes from here.
    const body = kind === 'push' ? pushBody({ phone: '+254712345678' }) : hostedBody();
    const reference = String(body.reference);
    const created = await this.send(
      kind === 'push' ? '/v1/checkouts/mobile-money' : '/v1/checkouts',
      body,
      { Authorization: `Bearer ${this.shopKey}`, 'Idempotency-Key': `upgrade-${reference}` },
    );
    if (created.status !== 201) {
      this.unexpected.push(
        `checkout ${reference}: ${created.status} ${JSON.stringify(created.body)}`,
      );
      return;
    }
    const trackingId = String(created.body.order_tracking_id);
    this.orders.push({ reference, trackingId, kind });
    if (kind === 'hosted') await this.sandbox.control.settle(trackingId, 'completed', 'card');
    else {
      await waitFor(
        `the phone to pay ${reference}`,
        async () => (await this.sandbox.control.order(trackingId)).state === 'completed' || null,
        10_000,
        50,
      );
    }
    const notified = await this.send(`/v1/ipn/${this.ipnSecret}`, {
      OrderTrackingId: trackingId,
      OrderMerchantReference: reference,
      OrderNotificationType: 'IPNCHANGE',
    });
    if (notified.status === 200 && notified.body.status === 200) this.acknowledged += 1;
    else this.unexpected.push(`notification ${reference}: ${notified.status}`);
  }

  /** One request, retried on another api after a stopping one's 503 or refused connection. */
  private async send(
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const api = this.rotation.next();
      let status: number;
      let text: string;
      try {
        const answer = await fetch(`${api}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(20_000),
        });
        status = answer.status;
        text = await answer.text();
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
        this.refusals.push({ api, what: cause, path });
        if (!this.rotation.stopping.has(api)) this.unexpected.push(`${path} on ${api}: ${cause}`);
        await sleep(50);
        continue;
      }
      if (status === 503) {
        this.refusals.push({ api, what: '503', path });
        if (!this.rotation.stopping.has(api))
          this.unexpected.push(`${path} on ${api}: 503 ${text}`);
        await sleep(50);
        continue;
      }
      // An Idempotency-Key still held by a request a stopping api is finishing: asked again.
      if (status === 409 && text.includes('idempotency_key_in_use')) {
        await sleep(100);
        continue;
      }
      return { status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    }
    throw new Error(`${path}: no api answered after 50 tries`);
  }
}

/** Error lines (pino level 50 and above) in a process's output. */
function errorLines(release: Release): string[] {
  const lines: string[] = [];
  for (const file of readdirSync(release.logDir)) {
    for (const line of readFileSync(join(release.logDir, file), 'utf8').split('\n')) {
      try {
        const entry = JSON.parse(line) as { level?: number; msg?: string };
        if ((entry.level ?? 0) >= 50) lines.push(`${file}: ${line.slice(0, 400)}`);
      } catch {
        // Not a log line (a stack trace's continuation, a warning from Node).
      }
    }
  }
  return lines;
}

describe('an upgrade under load', () => {
  let previous: Release;
  let next: Release;
  let sandbox: RunningSandbox;
  let admin: DataSource;
  let dataSource: DataSource | undefined;
  const databaseName = `${currentTestRun().databaseName}_upgrade`;
  const processes: ReleaseProcess[] = [];

  beforeAll(async () => {
    previous = releaseFromGit(previousRevision());
    next = thisRelease();
    sandbox = await startSandbox();
    admin = await new DataSource({
      type: 'postgres',
      url: currentTestRun().adminDatabaseUrl,
    }).initialize();
    await admin.query(`CREATE DATABASE "${databaseName}"`);
  }, 600_000);

  afterAll(async () => {
    await Promise.all(processes.map((process) => process.stop()));
    await dataSource?.destroy();
    await admin?.query(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`);
    await admin?.destroy();
    await sandbox?.close();
    previous?.remove();
    next?.remove();
  });

  it("rolls the previous release to this one while payments flow: nothing lost, nothing doubled, no 5xx but a stopping replica's 503", async () => {
    const run = currentTestRun();
    const url = `${run.databaseUrl.slice(0, run.databaseUrl.lastIndexOf('/'))}/${databaseName}`;
    await sandbox.control.notifications('drop');
    const ports = await freePorts(8);
    const apiUrl = (port: number) => `http://127.0.0.1:${port}`;
    const shopKey = `shop_${randomBytes(10).toString('hex')}`;
    const ipnSecret = `ipn_${randomBytes(8).toString('hex')}`;
    const env: Record<string, string> = {
      NODE_ENV: 'test',
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'warn',
      DATABASE_URL: url,
      QUEUE_BACKEND: run.queueBackend,
      ...(run.queueBackend === 'redis' ? { REDIS_URL: run.redisUrl } : {}),
      QUEUE_PREFIX: `${run.queuePrefix}_upgrade`,
      PESAPAL_BASE_URL: sandbox.baseUrl,
      PESAPAL_CONSUMER_KEY: SANDBOX_CREDENTIALS.consumerKey,
      PESAPAL_CONSUMER_SECRET: SANDBOX_CREDENTIALS.consumerSecret,
      PUBLIC_BASE_URL: apiUrl(ports[0]),
      SHOP_API_KEYS: `upgrade:${shopKey}`,
      IPN_PATH_SECRET: ipnSecret,
      RUN_MIGRATIONS: 'false',
      SWEEP_INTERVAL_MS: '500',
      WORKER_NICE: '0',
      JOB_LOCK_MS: '5000',
      // Eight apps beside the other suites on one PostgreSQL: small pools.
      DATABASE_POOL_SIZE: '5',
      WORKER_DATABASE_POOL_SIZE: '2',
    };
    const rotation = new Rotation();
    const start = (release: Release, app: 'api' | 'worker', port: number) => {
      const started = release.start(app, {
        ...env,
        ...(app === 'api' ? { PORT: String(port) } : { WORKER_PORT: String(port) }),
      });
      processes.push(started);
      return started;
    };
    const ready = (ports: number[]) =>
      waitFor(
        `processes on ${ports.join(', ')} ready`,
        async () => {
          const answers = await Promise.all(
            ports.map((port) =>
              fetch(`${apiUrl(port)}/health/ready`)
                .then((answer) => answer.status === 200)
                .catch(() => false),
            ),
          );
          return answers.every(Boolean) || null;
        },
        120_000,
        250,
      );

    // The previous release, on its own schema.
    await previous.migrate(env);
    const old = {
      apis: [0, 1].map((index) => start(previous, 'api', ports[index])),
      workers: [2, 3].map((index) => start(previous, 'worker', ports[index])),
    };
    await ready(ports.slice(0, 4)).catch((error: Error) => {
      throw new Error(
        `${error.message}\n${[...old.apis, ...old.workers].map((p) => p.tail()).join('\n')}`,
      );
    });
    rotation.add(apiUrl(ports[0]), apiUrl(ports[1]));
    const payments = new SteadyPayments(rotation, sandbox, shopKey, ipnSecret);
    payments.start();
    await sleep(HEADROOM_MS);

    // This release's migrations while the previous release serves.
    await next.migrate(env);
    await sleep(HEADROOM_MS);
    const fresh = {
      apis: [4, 5].map((index) => start(next, 'api', ports[index])),
      workers: [6, 7].map((index) => start(next, 'worker', ports[index])),
    };
    await ready(ports.slice(4)).catch((error: Error) => {
      throw new Error(
        `${error.message}\n${[...fresh.apis, ...fresh.workers].map((p) => p.tail()).join('\n')}`,
      );
    });
    rotation.add(apiUrl(ports[4]), apiUrl(ports[5]));
    await sleep(HEADROOM_MS);

    // The old replicas stop one at a time: SIGTERM, then the balancer takes it out of rotation
    // (an endpoint controller is never quicker than the signal), then the next.
    const exits: (number | string)[] = [];
    for (const [index, api] of old.apis.entries()) {
      const address = apiUrl(ports[index]);
      rotation.stopping.add(address);
      const exited = api.stop();
      await sleep(300);
      rotation.remove(address);
      exits.push(await exited);
      await sleep(HEADROOM_MS);
    }
    for (const worker of old.workers) {
      exits.push(await worker.stop());
      await sleep(HEADROOM_MS);
    }
    await payments.stop();

    expect(payments.unexpected).toEqual([]);
    // Each closed cleanly: Nest ends a process it closed on SIGTERM by raising the signal again.
    expect(exits).toEqual(['SIGTERM', 'SIGTERM', 'SIGTERM', 'SIGTERM']);
    const count = payments.orders.length;
    expect(count).toBeGreaterThan(20);
    expect(payments.acknowledged).toBe(count);

    dataSource = await new DataSource({ type: 'postgres', url }).initialize();
    const references = payments.orders.map((order) => order.reference);
    await waitFor(
      'every order completed by this release',
      async () => {
        const [row] = (await dataSource!.query(
          `SELECT count(*)::int AS n FROM orders WHERE merchant_reference = ANY($1) AND status = 'completed'`,
          [references],
        )) as { n: number }[];
        return row.n === count || null;
      },
      60_000,
      250,
    );
    await waitFor(
      'every notification verified',
      async () => {
        const [open] = (await dataSource!.query(
          `SELECT count(*)::int AS n FROM ipn_notifications WHERE status NOT IN ('applied', 'ignored')`,
        )) as { n: number }[];
        return open.n === 0 || null;
      },
      60_000,
      250,
    );
    // Each order completed once: one status change to completed and one order.completed each.
    const [once] = (await dataSource.query(
      `SELECT (SELECT count(*)::int FROM outbox_events e JOIN orders o ON o.id = e.order_id
                WHERE e.type = 'order.completed' AND o.merchant_reference = ANY($1)) AS events,
              (SELECT count(DISTINCT e.order_id)::int FROM outbox_events e JOIN orders o ON o.id = e.order_id
                WHERE e.type = 'order.completed' AND o.merchant_reference = ANY($1)) AS orders,
              (SELECT count(*)::int FROM orders WHERE merchant_reference = ANY($1)) AS recorded,
              (SELECT count(*)::int FROM ipn_notifications) AS stored`,
      [references],
    )) as { events: number; orders: number; recorded: number; stored: number }[];
    expect(once).toEqual({ events: count, orders: count, recorded: count, stored: count });
    expect([...errorLines(previous), ...errorLines(next)]).toEqual([]);

    // Kept in the test's output: how many requests a stopping replica refused.
    process.stdout.write(
      `upgrade ${previous.commit.slice(0, 8)} → working tree: ${count} payments, ${payments.refusals.length} refused by stopping replicas (${[...new Set(payments.refusals.map((r) => r.what))].join(', ') || 'none'})\n`,
    );
  }, 420_000);
});
