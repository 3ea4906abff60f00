import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { QUEUE_NAMES } from '@app/queues';
import { hostedCheckout, notify, waitForStatus } from '../ipn/ipn-support';
import { RunningService } from '../support/service';
import { startWorkerSuite, WorkerSuite } from '../support/worker-suite';

const TOKEN = 'metrics-scrape-token-1';

interface Family {
  name: string;
  type: string;
  metrics: { value?: string; count?: string; labels?: Record<string, string> }[];
}

/** One scrape, parsed by a Prometheus text-format parser. */
async function scrape(baseUrl: string): Promise<{ text: string; families: Map<string, Family> }> {
  const answer = await request(baseUrl).get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
  expect(answer.status).toBe(200);
  expect(answer.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  const families = parsePrometheusTextFormat(answer.text) as Family[];
  return { text: answer.text, families: new Map(families.map((f) => [f.name, f])) };
}

/** A counter's value (or a histogram's count) for the labels given; 0 when the series is absent. */
function valueOf(
  families: Map<string, Family>,
  name: string,
  labels: Record<string, string> = {},
): number {
  const series = families
    .get(name)
    ?.metrics.find((m) =>
      Object.entries(labels).every(([key, value]) => m.labels?.[key] === value),
    );
  return Number(series?.value ?? series?.count ?? 0);
}

/**
 * Statements of one kind shared so far (shared_statement_items' count), read from the text: the
 * parser above loses a histogram's labels when `le` comes first, as prom-client writes it.
 */
function statementCount(text: string, statement: string): number {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`shared_statement_items_count{statement="${statement}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('GET /metrics on the api and the worker', () => {
  let suite: WorkerSuite | undefined;
  let service: RunningService;
  let dataSource: DataSource;
  let workerUrl: string;

  beforeAll(async () => {
    // A database and queues of its own: every job this worker runs is this suite's.
    suite = await startWorkerSuite({
      ownDatabase: 'metrics',
      env: {
        // No scheduled polls and one sweep (at start): the one lookup of this test is the
        // notification's, not a follow-up of the refund.
        POLL_SCHEDULE_SECONDS: '600',
        SWEEP_INTERVAL_MS: '600000',
        METRICS_TOKEN: TOKEN,
      },
    });
    ({ service, dataSource } = suite);
    const address = service.workerApp!.getHttpServer().address() as { port: number };
    workerUrl = `http://127.0.0.1:${address.port}`;
  }, 60_000);
  afterAll(async () => {
    await suite?.close();
    // startService left these in process.env, which later suites of this jest worker share.
    delete process.env.METRICS_TOKEN;
  });

  it('asks for the bearer token when METRICS_TOKEN is set, on both apps', async () => {
    for (const baseUrl of [service.apiUrl, workerUrl]) {
      expect((await request(baseUrl).get('/metrics')).status).toBe(401);
      const wrong = await request(baseUrl).get('/metrics').set('Authorization', 'Bearer nope');
      expect(wrong.status).toBe(401);
      // Not the shop's or the admin's key either.
      expect((await request(baseUrl).get('/metrics').set(service.adminAuth)).status).toBe(401);
    }
  });

  it('counts a checkout, its notification and its refund by the right amounts', async () => {
    const { text: beforeText, families: before } = await scrape(service.apiUrl);
    await service.sandbox.control.notifications('drop');

    const checkout = await hostedCheckout(service);
    await service.sandbox.control.settle(checkout.orderTrackingId, 'completed', 'card');
    const ack = await notify(service, {
      trackingId: checkout.orderTrackingId,
      reference: checkout.reference,
    });
    expect(ack.status).toBe(200);
    await waitForStatus(dataSource, checkout.reference, 'completed');
    const refund = await request(service.apiUrl)
      .post(`/v1/admin/orders/${checkout.reference}/refunds`)
      .set(service.adminAuth)
      .send({ amount: '1500.00', reason: 'customer asked' });
    expect(refund.status).toBe(201);

    const { text, families: after } = await scrape(workerUrl);
    const moved = (name: string, labels: Record<string, string> = {}) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);

    expect(moved('checkouts_total', { kind: 'hosted', result: 'created' })).toBe(1);
    expect(
      moved('http_requests_total', { route: '/v1/checkouts', method: 'POST', status: '201' }),
    ).toBe(1);
    expect(moved('ipn_acknowledgements_total', { outcome: 'stored' })).toBe(1);
    expect(moved('ipn_acknowledgement_duration_seconds')).toBe(1);
    expect(
      moved('http_requests_total', { route: '/v1/ipn/:secret', method: 'POST', status: '200' }),
    ).toBe(1);
    expect(moved('notification_lag_seconds')).toBe(1);
    // One notification, nothing else at once: its row stored and read by one statement each,
    // and its outcome written by at least one (a poll may write it too).
    const statements = (statement: string) =>
      statementCount(text, statement) - statementCount(beforeText, statement);
    expect(statements('inbox_store')).toBe(1);
    expect(statements('inbox_read')).toBe(1);
    expect(statements('outcome_write')).toBeGreaterThanOrEqual(1);
    expect(
      moved('gateway_client_calls_total', { operation: 'submitOrder', outcome: 'success' }),
    ).toBe(1);
    expect(
      moved('gateway_client_calls_total', {
        operation: 'getTransactionStatus',
        outcome: 'success',
      }),
    ).toBe(1);
    expect(
      moved('gateway_client_calls_total', { operation: 'requestRefund', outcome: 'success' }),
    ).toBe(1);
    expect(moved('refunds_total', { result: 'accepted' })).toBe(1);

    // Label values are templates and closed sets: no secret, reference or tracking id in a scrape.
    expect(text).not.toContain(service.env.IPN_PATH_SECRET);
    expect(text).not.toContain(checkout.reference);
    expect(text).not.toContain(checkout.orderTrackingId);
  });

  it('reports what waits: inbox and outbox backlogs, queue depth per queue, orders to review', async () => {
    // Queued 90 s ago and never verified; and an unmatched one an hour old, which waits for its
    // order by design and so counts in the backlog but not in the age.
    await dataSource.query(
      `INSERT INTO ipn_notifications (order_tracking_id, merchant_reference, notification_type,
         http_method, payload, status, received_at, next_attempt_at)
       VALUES ('metrics-queued', 'metrics-queued', 'IPNCHANGE', 'GET', '{}', 'queued',
               now() - interval '90 seconds', now() + interval '1 hour'),
              ('metrics-unmatched', 'metrics-unmatched', 'IPNCHANGE', 'GET', '{}', 'unmatched',
               now() - interval '1 hour', now() + interval '1 hour')`,
    );
    const { families } = await scrape(workerUrl);
    expect(valueOf(families, 'notification_inbox_backlog')).toBeGreaterThanOrEqual(2);
    expect(valueOf(families, 'notification_inbox_oldest_seconds')).toBeGreaterThanOrEqual(90);
    expect(valueOf(families, 'notification_inbox_oldest_seconds')).toBeLessThan(3600);
    expect(families.get('merchant_event_backlog')?.type).toBe('GAUGE');
    expect(families.get('merchant_event_oldest_seconds')?.type).toBe('GAUGE');
    expect(families.get('orders_needing_review')?.type).toBe('GAUGE');
    const queueSeries = families.get('queue_jobs')?.metrics ?? [];
    for (const queue of QUEUE_NAMES) {
      for (const state of ['waiting', 'active', 'delayed', 'failed']) {
        expect(queueSeries).toContainEqual(
          expect.objectContaining({ labels: { queue, state }, value: expect.any(String) }),
        );
      }
    }
    expect(families.get('process_cpu_user_seconds_total')?.type).toBe('COUNTER');
  });
});
