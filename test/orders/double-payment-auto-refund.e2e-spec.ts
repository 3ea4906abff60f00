import request from 'supertest';
import { getOrder, hostedBody, postCheckout } from '../checkout/support';
import { RunningService, startService, waitFor } from '../support/service';

/**
 * AUTO_REFUND_DOUBLE_PAYMENTS: when an earlier attempt's late payment lands on an order another
 * attempt paid, the worker refunds it without an admin, once.
 */
describe('double payments refunded by the worker (AUTO_REFUND_DOUBLE_PAYMENTS)', () => {
  let service: RunningService;

  beforeAll(async () => {
    service = await startService({ worker: true, env: { AUTO_REFUND_DOUBLE_PAYMENTS: 'true' } });
  }, 60_000);

  afterAll(async () => {
    await service?.close();
  });

  const orderOf = async (reference: string) => (await getOrder(service, reference)).body;

  it('refunds the second payment once and clears the review flag', async () => {
    const body = hostedBody();
    const reference = String(body.reference);
    const created = await postCheckout(service, body);
    const first = created.body.order_tracking_id as string;
    await service.sandbox.control.settle(first, 'failed', 'card');
    await waitFor('failed', async () => (await orderOf(reference)).status === 'failed' || null);
    const retry = await request(service.apiUrl)
      .post(`/v1/orders/${reference}/attempts`)
      .set(service.shopAuth)
      .send({ method: 'hosted' });
    expect(retry.status).toBe(201);
    await service.sandbox.control.settle(retry.body.order_tracking_id, 'completed', 'card');
    await waitFor('paid', async () => (await orderOf(reference)).status === 'completed' || null);

    await service.sandbox.control.settle(first, 'completed', 'card');
    await waitFor(
      'the second payment refunded',
      async () => (await orderOf(reference)).attempts[0].refund_status === 'accepted' || null,
      20_000,
    );
    const order = await orderOf(reference);
    expect(order).toMatchObject({ status: 'completed', attempt: 2, needs_review: false });
    expect((await service.sandbox.control.order(first)).refund_requests).toBe(1);
    expect((await service.sandbox.control.order(retry.body.order_tracking_id)).refund).toBeNull();
    const refunded = order.timeline.find(
      (e: { type: string }) => e.type === 'double_payment_refund_accepted',
    );
    expect(refunded).toMatchObject({ source: 'worker', actor: 'AUTO_REFUND_DOUBLE_PAYMENTS' });
  });
});
