import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import request from 'supertest';
import { hostedBody } from '../checkout/support';
import { ownTestDatabase } from '../support/database';
import { configuredSecrets, secretKindsIn } from '../support/secret-audit';
import { freePorts, waitFor } from '../support/service';
import { currentTestRun } from '../support/test-servers';

/**
 * `npm start` (scripts/run.js) as a developer sees it in the terminal: every part of the service
 * under the supervisor, on this run's own database, queue prefix and free ports. The apps run from
 * their sources (START_FROM_SOURCE=1) instead of a build, and log as the terminal default has it.
 */
const ROOT = join(__dirname, '..', '..');
const RUNNING = 'pesapal-checkout is running';
/** A pretty line of an app under the supervisor: its column, time, level, name, message. */
const APP_LINE = /^\[(sandbox|api|worker|shop)\] +\[\d\d:\d\d:\d\d\.\d{3}\] [A-Z]+ +\(\1\): \S/;
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('npm start: a quiet start in one readable format', () => {
  let own: Awaited<ReturnType<typeof ownTestDatabase>>;
  let supervisor: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const lines: string[] = [];
  let ports: { api: number; sandbox: number; worker: number; shop: number };
  const shopKey = `shop_${randomBytes(12).toString('hex')}`;
  const ipnSecret = `ipn_${randomBytes(12).toString('hex')}`;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    own = await ownTestDatabase('npm_start');
    const [api, sandbox, worker, shop] = await freePorts(4);
    ports = { api, sandbox, worker, shop };
    env = {
      ...process.env,
      START_FROM_SOURCE: '1',
      DATABASE_URL: own.url,
      QUEUE_PREFIX: `${currentTestRun().queuePrefix}_npm_start`,
      PORT: String(api),
      SANDBOX_PORT: String(sandbox),
      WORKER_PORT: String(worker),
      EXAMPLE_SHOP_PORT: String(shop),
      SHOP_API_KEYS: `npm-start:${shopKey}`,
      ADMIN_API_KEYS: `npm-start:admin_${randomBytes(12).toString('hex')}`,
      IPN_PATH_SECRET: ipnSecret,
      WORKER_NICE: '0',
      // What a developer's terminal gets: info, on stdout, in the supervisor's default format.
      LOG_LEVEL: 'info',
    };
    for (const name of [
      'LOG_FILE',
      'LOG_FORMAT',
      'PUBLIC_BASE_URL',
      'PESAPAL_BASE_URL',
      'ORDER_WEBHOOK_URL',
    ]) {
      delete env[name];
    }
    const child = spawn(process.execPath, [join(ROOT, 'scripts', 'run.js')], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    supervisor = child;
    exited = new Promise((resolve) => child.once('exit', () => resolve()));
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => lines.push(line));
    }
    await waitFor(
      'the "is running" lines',
      () => {
        if (child.exitCode !== null) {
          throw new Error(`npm start ended (code ${child.exitCode}):\n${lines.join('\n')}`);
        }
        return lines.some((line) => line.includes(RUNNING));
      },
      150_000,
      200,
    );
  }, 180_000);

  afterAll(async () => {
    if (supervisor && supervisor.exitCode === null && supervisor.signalCode === null) {
      supervisor.kill('SIGTERM');
    }
    await exited;
    // Every line it printed goes to the run's secret audit too.
    appendFileSync(
      join(currentTestRun().auditDir, `logs-npm-start-${process.pid}.ndjson`),
      `${lines.join('\n')}\n`,
    );
    await own?.drop();
  }, 60_000);

  const untilRunning = () => lines.slice(0, lines.findIndex((line) => line.includes(RUNNING)) + 1);

  it('reaches "is running" in under 40 lines, each part having said where it listens', () => {
    const start = untilRunning();
    expect(start.length).toBeGreaterThan(0);
    expect(start.length).toBeLessThan(40);
    const said = (text: string) => start.some((line) => line.includes(text));
    expect(said(`api listening on http://127.0.0.1:${ports.api}`)).toBe(true);
    expect(said(`worker health on http://127.0.0.1:${ports.worker}/health/ready`)).toBe(true);
    expect(said(`sandbox gateway on http://127.0.0.1:${ports.sandbox}/pesapalv3/api`)).toBe(true);
    expect(said(`example shop listening on http://127.0.0.1:${ports.shop}`)).toBe(true);
  });

  it("prints no route map and no module wiring (Nest's own records are at debug)", () => {
    const wiring = lines.filter((line) =>
      /Mapped \{|RouterExplorer|RoutesResolver|InstanceLoader|dependencies initialized|Nest application/.test(
        line,
      ),
    );
    expect(wiring).toEqual([]);
  });

  it('logs a request to the sandbox as one short line: method, path, status, time', async () => {
    const path = `/pesapalv3/api/quiet-start-${randomBytes(4).toString('hex')}`;
    const answer = await request(`http://127.0.0.1:${ports.sandbox}`).get(path);
    expect(answer.status).toBe(404);
    const logged = await waitFor('the request line', () => {
      const found = lines.filter((line) => line.includes(path));
      return found.length > 0 ? found : null;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(lines.filter((line) => line.includes(path))).toEqual(logged);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(
      new RegExp(`^\\[sandbox\\] +\\[[\\d:.]+\\] INFO +\\(sandbox\\): GET ${path} 404 \\d+ms$`),
    );
  });

  it('then tells a payment, its notification and the webhook, every line in one format', async () => {
    const body = hostedBody();
    const reference = String(body.reference);
    const created = await request(`http://127.0.0.1:${ports.api}`)
      .post('/v1/checkouts')
      .set({ Authorization: `Bearer ${shopKey}` })
      .send(body);
    expect(created.status).toBe(201);
    const settled = await fetch(
      `http://127.0.0.1:${ports.sandbox}/__sandbox/orders/${created.body.order_tracking_id}/outcome`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ outcome: 'completed', method: 'card' }),
      },
    );
    expect(settled.status).toBe(200);
    const told = (pattern: RegExp) => () => lines.some((line) => pattern.test(line));
    await waitFor('the checkout', told(/^\[api\] .*: POST \/v1\/checkouts 201 \d+ms$/), 30_000);
    await waitFor(
      'the notification',
      told(
        new RegExp(
          `^\\[sandbox\\] .*: notification IPNCHANGE for ${escaped(reference)} acknowledged`,
        ),
      ),
      30_000,
    );
    await waitFor(
      'the webhook sent',
      told(/^\[worker\] .*: webhook \S+ \(order\.completed\) to .* delivered/),
      30_000,
    );
    await waitFor(
      'the webhook received',
      told(
        new RegExp(`^\\[shop\\] .*: webhook order\\.completed for order ${escaped(reference)}$`),
      ),
      30_000,
    );

    // Every app line is a pretty one (an error's fields indented below it), none raw JSON; the
    // rest are the supervisor's own.
    const odd = lines.filter(
      (line) =>
        !APP_LINE.test(line) &&
        !(/^\[(sandbox|api|worker|shop)\] /.test(line) && line.slice(11).startsWith('    ')) &&
        !line.startsWith('[run]      '),
    );
    expect(odd).toEqual([]);
    expect(lines.filter((line) => line.includes('{"level"'))).toEqual([]);
  }, 90_000);

  it('shows no secret: keys, the IPN path secret, tokens, the webhook secret', () => {
    const text = lines.join('\n');
    expect(secretKindsIn(text, configuredSecrets(env))).toEqual([]);
    expect(text.includes(ipnSecret)).toBe(false);
  });
});
