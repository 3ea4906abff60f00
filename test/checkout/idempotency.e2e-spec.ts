import { RunningService, startService } from '../support/service';
import { getOrder, hostedBody, postCheckout, pushBody } from './support';

describe('checkouts: Idempotency-Key and re-used references', () => {
  let service: RunningService;
  const submits = async () =>
    (await service.sandbox.control.requests()).counts.SubmitOrderRequest ?? 0;

  beforeAll(async () => {
    service = await startService();
    // Register the IPN URL once so the counters below see order calls only.
    await postCheckout(service, hostedBody()).expect(201);
  });
  afterAll(() => service?.close());
  beforeEach(() => service.sandbox.control.reset());

  it('replays the first answer for the same key and body without a second gateway call', async () => {
    const body = hostedBody();
    const first = await postCheckout(service, body).set('Idempotency-Key', 'key-replay-1');
    const second = await postCheckout(service, body).set('Idempotency-Key', 'key-replay-1');
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(await submits()).toBe(1);
  });

  it('makes one gateway order for 20 concurrent identical requests', async () => {
    const body = hostedBody({ reference: undefined });
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        postCheckout(service, body).set('Idempotency-Key', 'key-concurrent-20'),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
    const trackingIds = new Set(answers.map((a) => a.body.order_tracking_id));
    expect(trackingIds.size).toBe(1);
    expect(await submits()).toBe(1);
  });

  it('answers 422 for the same key with another body, and changes nothing', async () => {
    const body = hostedBody();
    await postCheckout(service, body).set('Idempotency-Key', 'key-other-body').expect(201);
    const other = await postCheckout(service, { ...body, amount: '99.00' }).set(
      'Idempotency-Key',
      'key-other-body',
    );
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('idempotency_key_reused');
    expect(await submits()).toBe(1);
    expect((await getOrder(service, String(body.reference))).body.amount).toBe('1500.00');
  });

  it('keys are scoped per route: the same key on push is a separate request', async () => {
    const hosted = hostedBody();
    await postCheckout(service, hosted).set('Idempotency-Key', 'key-per-route').expect(201);
    const push = await postCheckout(service, pushBody(), '/v1/checkouts/mobile-money').set(
      'Idempotency-Key',
      'key-per-route',
    );
    expect(push.status).toBe(201);
  });

  it('without a key, a re-used reference with the same amount returns the existing order', async () => {
    const body = hostedBody();
    const first = await postCheckout(service, body).expect(201);
    const again = await postCheckout(service, { ...body, amount: 1500 });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await submits()).toBe(1);
  });

  it('a re-used reference with another amount or currency is a 409 and never reaches the gateway', async () => {
    const body = hostedBody();
    await postCheckout(service, body).expect(201);
    const otherAmount = await postCheckout(service, { ...body, amount: '1600.00' });
    expect(otherAmount.status).toBe(409);
    expect(otherAmount.body.error).toMatchObject({
      code: 'reference_in_use',
      existing: { amount: '1500.00', currency: 'KES' },
    });
    const otherCurrency = await postCheckout(service, { ...body, currency: 'USD' });
    expect(otherCurrency.status).toBe(409);
    expect(await submits()).toBe(1);
  });

  it('concurrent requests re-using one reference without a key make one order', async () => {
    const body = hostedBody();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => postCheckout(service, body)),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(9);
    expect(new Set(answers.map((a) => a.body.order_tracking_id)).size).toBe(1);
    expect(await submits()).toBe(1);
  });

  it('refuses a malformed Idempotency-Key', async () => {
    const answer = await postCheckout(service, hostedBody()).set(
      'Idempotency-Key',
      'x'.repeat(256),
    );
    expect(answer.status).toBe(400);
    expect(answer.body.error.errors).toEqual([
      { field: 'Idempotency-Key', reason: expect.any(String) },
    ]);
  });
});
