import { OrderEntity } from '@app/persistence';
import { DataSource } from 'typeorm';
import { ShopApiError, ShopClient } from '../../libs/shop-client/src';
import { uniqueReference } from '../checkout/support';
import { RunningService, startService } from '../support/service';

/**
 * The shop client against the real api, worker and sandbox: checkouts with safe retries, errors
 * by their code, and the order's outcome followed live with its status_token.
 */
describe('the shop client (libs/shop-client)', () => {
  let service: RunningService;
  let dataSource: DataSource;
  let client: ShopClient;
  const calls: string[] = [];
  const keys: (string | null)[] = [];

  /** fetch as the client sees it; `dropNext` makes the next answer lost after the api acted. */
  let dropNext = 0;
  const recordingFetch: typeof fetch = async (input, init) => {
    const request = input instanceof Request ? input : new Request(input, init);
    calls.push(`${request.method} ${new URL(request.url).pathname}`);
    keys.push(request.headers.get('idempotency-key'));
    const answer = await fetch(request);
    if (dropNext > 0) {
      dropNext -= 1;
      await answer.arrayBuffer();
      throw new TypeError('fetch failed: the connection dropped before the answer arrived');
    }
    return answer;
  };

  const checkout = (overrides: Record<string, unknown> = {}) => ({
    amount: '1500.00',
    currency: 'KES',
    description: 'Two bags of coffee',
    reference: uniqueReference('SC'),
    customer: { email: 'amina@example.com', phone: '+254712345678', first_name: 'Amina' },
    return_url: 'https://shop.example/thank-you',
    ...overrides,
  });

  beforeAll(async () => {
    service = await startService({ worker: true });
    dataSource = service.apiApp.get(DataSource);
    client = new ShopClient({
      baseUrl: service.apiUrl,
      apiKey: service.shopKey,
      fetch: recordingFetch,
      retryDelayMs: 50,
    });
  }, 60_000);
  afterAll(() => service?.close());
  beforeEach(() => {
    calls.length = 0;
    keys.length = 0;
    dropNext = 0;
  });

  it('starts a hosted checkout and follows it live to paid', async () => {
    const created = await client.createCheckout(checkout());
    expect(created).toMatchObject({ status: 'pending', attempt: 1 });
    expect(created.redirect_url).toMatch(/^https?:\/\//);
    const waiting = client.waitForOutcome(created.reference, created.status_token, {
      timeoutMs: 30_000,
    });
    await service.sandbox.control.settle(created.order_tracking_id!, 'completed', 'card');
    await expect(waiting).resolves.toEqual({
      outcome: 'paid',
      reference: created.reference,
      status: 'completed',
    });
  });

  it('retries a lost answer with the same Idempotency-Key: one order, one gateway submission', async () => {
    const before = (await service.sandbox.control.requests()).counts.SubmitOrderRequest;
    const body = checkout();
    dropNext = 1;
    const created = await client.createCheckout(body);
    expect(calls).toEqual(['POST /v1/checkouts', 'POST /v1/checkouts']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(created.reference).toBe(body.reference);
    const orders = await dataSource
      .getRepository(OrderEntity)
      .countBy({ merchantReference: body.reference });
    expect(orders).toBe(1);
    const after = (await service.sandbox.control.requests()).counts.SubmitOrderRequest;
    expect(after - before).toBe(1);
  });

  it('never retries a 4xx: the error carries the code, the message and each failing field', async () => {
    const refused = await client
      .createCheckout(checkout({ amount: '-5', currency: 'XXX' }))
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ShopApiError);
    const error = refused as ShopApiError;
    expect(error.status).toBe(400);
    expect(error.code).toBe('validation_failed');
    expect(error.retryable).toBe(false);
    expect(error.problems.map((p) => p.field).sort()).toEqual(['amount', 'currency']);
    expect(calls).toEqual(['POST /v1/checkouts']);

    const missing = await client.getOrder('NO-SUCH-ORDER').catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, code: 'order_not_found' });
    expect(calls).toEqual(['POST /v1/checkouts', 'GET /v1/orders/NO-SUCH-ORDER']);
  });

  it('refuses a status_token of another order, and answers pending when nothing happens in time', async () => {
    const first = await client.createCheckout(checkout());
    const second = await client.createCheckout(checkout());
    const refused = await client
      .waitForOutcome(first.reference, second.status_token, { timeoutMs: 5_000 })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 401, code: 'unauthenticated' });

    const started = Date.now();
    await expect(
      client.waitForOutcome(first.reference, first.status_token, { timeoutMs: 1_500 }),
    ).resolves.toEqual({ outcome: 'pending', reference: first.reference, status: 'pending' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
  });

  it('reports a declined payment as failed and retryable, and pays on a second attempt', async () => {
    const created = await client.createCheckout(checkout());
    await service.sandbox.control.settle(created.order_tracking_id!, 'failed', 'card');
    await expect(
      client.waitForOutcome(created.reference, created.status_token, { timeoutMs: 30_000 }),
    ).resolves.toEqual({
      outcome: 'failed',
      reference: created.reference,
      status: 'failed',
      retryable: true,
    });

    // The new attempt's answer is lost once: the retry with the same key starts no third attempt.
    dropNext = 1;
    const again = await client.startAttempt(created.reference, { method: 'hosted' });
    expect(again.attempt).toBe(2);
    expect(keys.slice(-2)).toEqual([keys[keys.length - 1], keys[keys.length - 1]]);
    expect(keys[keys.length - 1]).not.toBeNull();
    const waiting = client.waitForOutcome(created.reference, again.status_token, {
      timeoutMs: 30_000,
    });
    await service.sandbox.control.settle(again.order_tracking_id!, 'completed', 'card');
    await expect(waiting).resolves.toMatchObject({ outcome: 'paid' });
    const order = await client.getOrder(created.reference);
    expect(order.attempts.map((a) => a.status)).toEqual(['failed', 'completed']);
  });

  it('makes, reads, lists and deactivates a payment link, a lost answer making one link', async () => {
    const prefix = `SCL${Date.now().toString(36)}`;
    dropNext = 1;
    const link = await client.createPaymentLink({
      amount: '900',
      currency: 'KES',
      description: 'Invoice 12',
      reference_prefix: prefix,
      max_payments: 1,
    });
    expect(link).toMatchObject({ status: 'active', amount: '900.00', reference_prefix: prefix });
    expect(keys.slice(-2)).toEqual([keys[keys.length - 1], keys[keys.length - 1]]);
    const made = await dataSource.query(
      `SELECT count(*)::int AS n FROM payment_links WHERE reference_prefix = $1`,
      [prefix],
    );
    expect(made[0].n).toBe(1);
    const listed = await client.listPaymentLinks({ currency: 'KES', status: 'active' });
    expect(listed.items.map((item) => item.id)).toContain(link.id);
    expect((await client.getPaymentLink(link.id)).payments).toEqual([]);
    const off = await client.updatePaymentLink(link.id, { active: false });
    expect(off.status).toBe('deactivated');
    await expect(client.getPaymentLink('not-a-link')).rejects.toMatchObject({
      code: 'payment_link_not_found',
    });
  });
});
