import { ChildProcess, spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import request from 'supertest';
import { RunningSandbox, SANDBOX_CREDENTIALS, startSandbox } from '../support/sandbox';
import { freePort, waitFor } from '../support/service';
import { currentTestRun } from '../support/test-servers';

const ROOT = join(__dirname, '..', '..');

interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  service: string;
}

/** An OTLP/HTTP trace receiver (JSON, as @opentelemetry/exporter-trace-otlp-http sends it). */
class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  private server!: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.receive(req).then(() => res.end('{}')));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  private async receive(req: IncomingMessage): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (!(req.url ?? '').endsWith('/v1/traces')) return;
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      resourceSpans: {
        resource: { attributes: { key: string; value: { stringValue?: string } }[] };
        scopeSpans: {
          spans: { traceId: string; spanId: string; parentSpanId?: string; name: string }[];
        }[];
      }[];
    };
    for (const resourceSpans of body.resourceSpans) {
      const service =
        resourceSpans.resource.attributes.find((a) => a.key === 'service.name')?.value
          .stringValue ?? '';
      for (const scope of resourceSpans.scopeSpans) {
        for (const span of scope.spans) this.spans.push({ ...span, service });
      }
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Starts an app as its own process; its JSON log lines are collected in `lines`. */
function startApp(
  app: 'api' | 'worker',
  env: Record<string, string>,
  lines: string[],
): ChildProcess {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', `apps/${app}/src/main.ts`], {
    cwd: ROOT,
    // Its lines come here (stdout), not to the run's log file; afterAll hands them to the audit.
    env: { ...process.env, ...env, LOG_LEVEL: 'info', LOG_FILE: '' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let rest = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const text = rest + chunk.toString('utf8');
    const complete = text.split('\n');
    rest = complete.pop() ?? '';
    lines.push(...complete);
  });
  return child;
}

const stopped = (child: ChildProcess | undefined) =>
  new Promise<void>((resolve) => {
    if (!child || child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

/**
 * The apps as processes of their own (OpenTelemetry patches pg, http and Nest as Node loads them,
 * which jest's module loader bypasses), exporting to a receiver in the test.
 */
describe('OpenTelemetry: one IPN is one trace from the route to the outcome', () => {
  let receiver: OtlpReceiver;
  let sandbox: RunningSandbox;
  let api: ChildProcess | undefined;
  let worker: ChildProcess | undefined;
  let apiUrl: string;
  let env: Record<string, string>;
  const logLines: string[] = [];

  beforeAll(async () => {
    receiver = await new OtlpReceiver().start();
    sandbox = await startSandbox();
    const port = await freePort();
    apiUrl = `http://127.0.0.1:${port}`;
    env = {
      PORT: String(port),
      WORKER_PORT: String(await freePort()),
      PESAPAL_BASE_URL: sandbox.baseUrl,
      PESAPAL_CONSUMER_KEY: SANDBOX_CREDENTIALS.consumerKey,
      PESAPAL_CONSUMER_SECRET: SANDBOX_CREDENTIALS.consumerSecret,
      PUBLIC_BASE_URL: apiUrl,
      SHOP_API_KEYS: `test-shop:shop_${randomBytes(8).toString('hex')}`,
      ADMIN_API_KEYS: `test-admin:admin_${randomBytes(8).toString('hex')}`,
      IPN_PATH_SECRET: `ipn_${randomBytes(8).toString('hex')}`,
      POLL_SCHEDULE_SECONDS: '600',
      QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}_otel`,
      WORKER_NICE: '0',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    api = startApp('api', env, logLines);
    worker = startApp('worker', env, logLines);
    await waitFor(
      'the api and worker ready',
      async () => {
        const ready = await Promise.all(
          [apiUrl, `http://127.0.0.1:${env.WORKER_PORT}`].map((url) =>
            request(url)
              .get('/health/ready')
              .then((r) => r.status === 200)
              .catch(() => false),
          ),
        );
        return ready.every(Boolean) ? true : null;
      },
      60_000,
    );
  }, 90_000);
  afterAll(async () => {
    await Promise.all([stopped(api), stopped(worker)]);
    appendFileSync(
      join(currentTestRun().auditDir, `logs-tracing-${process.pid}.ndjson`),
      logLines.join('\n'),
    );
    await sandbox?.close();
    await receiver?.close();
  });

  it('links route, relay, verification, gateway lookup and outcome under one trace id', async () => {
    const shopAuth = { Authorization: `Bearer ${env.SHOP_API_KEYS.split(':')[1]}` };
    const reference = `OTEL-${Date.now().toString(36)}`;
    const created = await request(apiUrl)
      .post('/v1/checkouts')
      .set(shopAuth)
      .send({
        amount: '1500.00',
        currency: 'KES',
        description: 'Two bags of coffee',
        reference,
        customer: { email: 'amina@example.com' },
      });
    expect(created.status).toBe(201);
    const trackingId = created.body.order_tracking_id as string;
    await sandbox.control.notifications('drop');
    await sandbox.control.settle(trackingId, 'completed', 'card');

    const ack = await request(`${apiUrl}/v1/ipn/${env.IPN_PATH_SECRET}`)
      .post('')
      .set('content-type', 'application/json')
      .send({
        OrderTrackingId: trackingId,
        OrderMerchantReference: reference,
        OrderNotificationType: 'IPNCHANGE',
      });
    expect(ack.status).toBe(200);

    const trace = await waitFor(
      'the notification trace with its outcome',
      async () => {
        const route = receiver.spans.find(
          (s) => s.service === 'pesapal-checkout-api' && /POST/.test(s.name) && /ipn/i.test(s.name),
        );
        const ipnRoot =
          route ??
          receiver.spans.find(
            (s) =>
              s.service === 'pesapal-checkout-api' &&
              !s.parentSpanId &&
              receiver.spans.some((o) => o.traceId === s.traceId && o.name === 'inbox relay'),
          );
        if (!ipnRoot) return null;
        const spans = receiver.spans.filter((s) => s.traceId === ipnRoot.traceId);
        return spans.some((s) => s.name === 'apply outcome') ? spans : null;
      },
      30_000,
    );

    const names = trace.map((s) => s.name);
    expect(names).toEqual(
      expect.arrayContaining(['inbox relay', 'verify notification', 'apply outcome']),
    );
    // The IPN route's path secret never leaves in a span (url.path, Nest's url.full).
    const exported = JSON.stringify(receiver.spans);
    expect(exported).toContain('/v1/ipn/[redacted]');
    expect(exported).not.toContain(env.IPN_PATH_SECRET);
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    const parentOf = (name: string) =>
      byId.get(trace.find((s) => s.name === name)!.parentSpanId ?? '');
    // The chain: the api's request → the worker's relay → the job's verification → the outcome.
    expect(parentOf('inbox relay')?.service).toBe('pesapal-checkout-api');
    expect(parentOf('verify notification')?.name).toBe('inbox relay');
    expect(trace.find((s) => s.name === 'verify notification')?.service).toBe(
      'pesapal-checkout-worker',
    );
    // The lookup at the gateway (an HTTP client span of the worker) and the outcome's SQL are in it.
    const workerSpans = trace.filter((s) => s.service === 'pesapal-checkout-worker');
    expect(workerSpans.some((s) => /^GET\b/.test(s.name))).toBe(true);
    expect(workerSpans.some((s) => /^pg\./.test(s.name) || /UPDATE|WITH/i.test(s.name))).toBe(true);
    expect(new Set(trace.map((s) => s.traceId)).size).toBe(1);
  }, 60_000);

  it('writes the trace id into the log lines of a traced request', async () => {
    const shopAuth = { Authorization: `Bearer ${env.SHOP_API_KEYS.split(':')[1]}` };
    const answer = await request(apiUrl)
      .get('/v1/orders/no-such-order')
      .set(shopAuth)
      .set('X-Request-Id', 'trace-log-probe-1');
    expect(answer.status).toBe(404);
    const line = await waitFor(
      'the request log line',
      async () => logLines.find((text) => text.includes('/v1/orders/no-such-order')) ?? null,
    );
    const logged = JSON.parse(line) as { trace_id?: string; req?: { id?: string } };
    // The caller's request id names the line too.
    expect(logged.req?.id).toBe('trace-log-probe-1');
    expect(logged.trace_id).toMatch(/^[0-9a-f]{32}$/);
    await waitFor('the request span', async () =>
      receiver.spans.some((s) => s.traceId === logged.trace_id) ? true : null,
    );
  });
});
