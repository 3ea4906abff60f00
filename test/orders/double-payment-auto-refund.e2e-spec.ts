import { Queue } from 'bullmq';
import request from 'supertest';
import { LostAutoRefunds } from '@app/checkout/refunds/worker/lost-auto-refunds';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { OrderRepository } from '@app/persistence';
import { JobProducer, queueConnectionFor, QUEUES } from '@app/queues';
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

  /** An order whose first attempt failed and whose second paid; the first's tracking id too. */
  const paidOnItsSecondAttempt = async () => {
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
    return { reference, first, second: retry.body.order_tracking_id as string };
  };

  it('refunds the second payment once and clears the review flag', async () => {
    const { reference, first, second } = await paidOnItsSecondAttempt();

    await service.sandbox.control.settle(first, 'completed', 'card');
    await waitFor(
      'the second payment refunded',
      async () => (await orderOf(reference)).attempts[0].refund_status === 'accepted' || null,
      20_000,
    );
    const order = await orderOf(reference);
    expect(order).toMatchObject({ status: 'completed', attempt: 2, needs_review: false });
    expect((await service.sandbox.control.order(first)).refund_requests).toBe(1);
    expect((await service.sandbox.control.order(second)).refund).toBeNull();
    const refunded = order.timeline.find(
      (e: { type: string }) => e.type === 'double_payment_refund_accepted',
    );
    expect(refunded).toMatchObject({ source: 'worker', actor: 'AUTO_REFUND_DOUBLE_PAYMENTS' });
  });

  it('queues the refund again when the queue lost its job before it ran (Redis came back empty)', async () => {
    const config = service.workerApp!.get<ServiceConfig>(SERVICE_CONFIG);
    const polls = new Queue(QUEUES.orderSync, {
      connection: queueConnectionFor(config),
      prefix: config.queuePrefix,
    });
    const jobs = service.workerApp!.get(JobProducer);
    const lostAutoRefunds = service.workerApp!.get(LostAutoRefunds);
    try {
      const { reference, first } = await paidOnItsSecondAttempt();
      const order = await service
        .workerApp!.get(OrderRepository)
        .findByMerchantReference(reference);
      const refundJob = { orderId: order!.id, attempt: 1 };
      // The refund waits on the paused queue, where the store then loses it.
      await polls.pause();
      await service.sandbox.control.settle(first, 'completed', 'card');
      const queued = await waitFor(
        'the refund queued',
        async () => (await jobs.existing('refund-double-payment', refundJob)) ?? null,
      );
      expect((await orderOf(reference)).needs_review).toBe(true);
      await queued.remove();

      expect(await lostAutoRefunds.requeueLost()).toBe(1);
      // Held again now: not queued twice.
      expect(await lostAutoRefunds.requeueLost()).toBe(0);
      await polls.resume();
      await waitFor(
        'the second payment refunded',
        async () => (await orderOf(reference)).attempts[0].refund_status === 'accepted' || null,
        20_000,
      );
      expect((await orderOf(reference)).needs_review).toBe(false);
      expect((await service.sandbox.control.order(first)).refund_requests).toBe(1);
      // Refunded: nothing waits for a refund any more.
      expect(await lostAutoRefunds.requeueLost()).toBe(0);
    } finally {
      await polls.resume();
      await polls.close();
    }
  });
});
