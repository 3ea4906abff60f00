import request from 'supertest';
import { OrderQueryService } from '@app/checkout/orders/api/order-query.service';
import { getOrder, hostedBody, NO_ANSWER_PHONE, postCheckout, pushBody } from '../checkout/support';
import { RunningService, startService, waitFor } from '../support/service';

/**
 * GET /v1/orders/:reference reads the order, its refund, earlier attempts and timeline in one
 * statement: its answer is, byte for byte, the view built from the order's entity and its rows
 * read one by one (the way a cancellation's answer is built), whichever name finds the order.
 */
describe('the order status read', () => {
  let service: RunningService;
  let query: OrderQueryService;

  beforeAll(async () => {
    service = await startService({ worker: true });
    query = service.apiApp.get(OrderQueryService);
  }, 60_000);

  afterAll(async () => {
    await service?.close();
  });

  const statusOf = async (reference: string) => (await getOrder(service, reference)).body.status;

  const entityView = async (reference: string) =>
    JSON.stringify(await query.viewOf(await query.find(reference)));

  /** The worker may still be touching the order (a refund's follow-up): compared while it is still. */
  async function expectAnswerAsBuiltFromEntities(names: string[], reference: string) {
    const { expected, reads } = await waitFor('the order unchanged across the reads', async () => {
      const before = await entityView(reference);
      const answers = [];
      for (const name of names) answers.push(await getOrder(service, name));
      return (await entityView(reference)) === before ? { expected: before, reads: answers } : null;
    });
    for (const read of reads) {
      expect(read.status).toBe(200);
      expect(JSON.stringify(read.body)).toBe(expected);
    }
  }

  it('answers a retried, paid and partly refunded order as its entity view, by any of its names', async () => {
    const body = hostedBody({ amount: '1500.50' });
    const reference = String(body.reference);
    const created = await postCheckout(service, body);
    const first = created.body.order_tracking_id as string;
    await service.sandbox.control.settle(first, 'failed', 'card');
    await waitFor('failed', async () => (await statusOf(reference)) === 'failed' || null);
    const retry = await request(service.apiUrl)
      .post(`/v1/orders/${reference}/attempts`)
      .set(service.shopAuth)
      .send({ method: 'hosted' });
    expect(retry.status).toBe(201);
    const second = retry.body.order_tracking_id as string;
    await service.sandbox.control.settle(second, 'completed', 'card');
    await waitFor('paid', async () => (await statusOf(reference)) === 'completed' || null);
    const refund = await request(service.apiUrl)
      .post(`/v1/admin/orders/${reference}/refunds`)
      .set(service.adminAuth)
      .send({ amount: '500.25', reason: 'one item returned', confirm_partial: true });
    expect(refund.status).toBe(201);

    const read = (await getOrder(service, reference)).body;
    expect(read).toMatchObject({ attempt: 2, amount: '1500.50', refund: { amount: '500.25' } });
    expect(read.attempts).toHaveLength(2);
    expect(read.timeline.length).toBeGreaterThan(3);
    await expectAnswerAsBuiltFromEntities([reference, second, first], reference);
  });

  it("answers a mobile-money order by push's reference as its entity view", async () => {
    const body = pushBody({ phone: NO_ANSWER_PHONE });
    const created = await postCheckout(service, body, '/v1/checkouts/mobile-money');
    expect(created.status).toBe(201);
    await expectAnswerAsBuiltFromEntities(
      [created.body.push_merchant_reference, created.body.order_tracking_id],
      String(body.reference),
    );
  });

  it('answers 404 for a name no order has', async () => {
    const read = await getOrder(service, 'NO-SUCH-ORDER-45');
    expect(read.status).toBe(404);
    expect(read.body.error).toMatchObject({ code: 'order_not_found' });
  });
});
