import { DataSource } from 'typeorm';
import { OrderEventEntity, OutboxEventEntity, RefundEntity } from '@app/persistence';
import { openTestDataSource } from '../support/database';
import { RunningService, startService } from '../support/service';
import { hostedCheckout, orderOf, transitionsOf, waitForStatus } from './ipn-support';
import { waitFor } from '../support/service';

describe('polling from Postgres: silent orders complete, expire at the horizon, refunds until reversed', () => {
  let service: RunningService;
  let dataSource: DataSource;

  beforeAll(async () => {
    service = await startService({
      worker: true,
      env: { POLL_SCHEDULE_SECONDS: '1', POLL_HORIZON_HOURS: '1', SWEEP_INTERVAL_MS: '200' },
    });
    dataSource = await openTestDataSource();
    await service.sandbox.control.notifications('drop');
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await dataSource?.destroy();
  });

  const pastHorizon = (orderId: string) =>
    dataSource.query(
      `UPDATE orders SET created_at = now() - interval '2 hours', next_poll_at = now() WHERE id = $1`,
      [orderId],
    );

  /** A paid order whose refund the gateway accepted (and has not reversed yet). */
  async function paidWithAcceptedRefund() {
    const checkout = await hostedCheckout(service);
    await service.sandbox.control.settle(checkout.orderTrackingId, 'completed', 'card');
    const paid = await waitForStatus(dataSource, checkout.reference, 'completed');
    const refunds = dataSource.getRepository(RefundEntity);
    const refund = await refunds.save(
      refunds.create({
        orderId: paid.id,
        confirmationCode: paid.confirmationCode ?? '',
        amount: '1500.00',
        currency: 'KES',
        isPartial: false,
        reason: 'customer asked',
        requestedBy: 'ops',
        adminKeyName: 'test-admin',
        status: 'accepted',
        acceptedAt: new Date(),
      }),
    );
    return { checkout, paid, refund };
  }

  it('completes an order whose notifications were all dropped, by polling', async () => {
    const checkout = await hostedCheckout(service);
    await service.sandbox.control.settle(checkout.orderTrackingId, 'completed', 'card');
    await waitForStatus(dataSource, checkout.reference, 'completed');
    const order = await waitFor('the poll recorded', async () => {
      const found = await orderOf(dataSource, checkout.reference);
      return found.pollAttempts >= 1 ? found : null;
    });
    expect(order.nextPollAt).toBeNull();
    const [event] = await dataSource
      .getRepository(OrderEventEntity)
      .findBy({ orderId: order.id, type: 'status_changed' });
    expect(event.source).toBe('poll');
    const log = await service.sandbox.control.notificationLog(checkout.orderTrackingId);
    expect(log.map((record) => record.state)).toEqual(['dropped']);
  });

  it('keeps looking up a pending order on the schedule, counting attempts', async () => {
    const checkout = await hostedCheckout(service);
    const order = await waitFor('three polls', async () => {
      const found = await orderOf(dataSource, checkout.reference);
      return found.pollAttempts >= 3 ? found : null;
    });
    expect(order.status).toBe('pending');
    expect(order.nextPollAt).not.toBeNull();
  });

  it('cancels at the gateway and expires an unpaid order at the horizon, once', async () => {
    const checkout = await hostedCheckout(service);
    const row = await orderOf(dataSource, checkout.reference);
    await pastHorizon(row.id);
    const order = await waitForStatus(dataSource, checkout.reference, 'expired');
    expect(order.expiredAt).not.toBeNull();
    expect(order.nextPollAt).toBeNull();
    expect((await service.sandbox.control.order(checkout.orderTrackingId)).state).toBe('cancelled');
    expect(await transitionsOf(dataSource, order.id)).toEqual(['pending->expired']);
    const outbox = await dataSource.getRepository(OutboxEventEntity).findBy({ orderId: order.id });
    expect(outbox.map((event) => event.type)).toEqual(['order.expired']);
  });

  it('flags the order for review instead when the gateway does not confirm the cancellation', async () => {
    const checkout = await hostedCheckout(service);
    const row = await orderOf(dataSource, checkout.reference);
    await service.sandbox.control.fault('CancelOrder', 'http500');
    try {
      await pastHorizon(row.id);
      const order = await waitFor('flagged', async () => {
        const found = await orderOf(dataSource, checkout.reference);
        return found.needsReview ? found : null;
      });
      expect(order.status).toBe('pending');
      expect(order.reviewReason).toMatch(/did not cancel/);
      expect(order.nextPollAt).not.toBeNull();
    } finally {
      await service.sandbox.control.fault('CancelOrder', 'none');
    }
  });

  it('keeps polling a completed order whose refund was accepted until the gateway reports it reversed', async () => {
    const { checkout, paid } = await paidWithAcceptedRefund();
    await service.sandbox.control.settle(checkout.orderTrackingId, 'reversed');
    const reversed = await waitForStatus(dataSource, checkout.reference, 'reversed');
    expect(reversed.nextPollAt).toBeNull();
    const refund = await dataSource
      .getRepository(RefundEntity)
      .findOneByOrFail({ orderId: paid.id });
    expect(refund.status).toBe('reversed');
  });

  it('flags a refund with no reversal by the poll horizon, on the timeline and to the shop, and stops polling it', async () => {
    const { checkout, paid, refund } = await paidWithAcceptedRefund();
    await dataSource.query(
      `UPDATE refunds SET created_at = now() - interval '2 hours' WHERE id = $1`,
      [refund.id],
    );
    await dataSource.query(`UPDATE orders SET next_poll_at = now() WHERE id = $1`, [paid.id]);

    const order = await waitFor('flagged', async () => {
      const found = await orderOf(dataSource, checkout.reference);
      return found.needsReview ? found : null;
    });
    expect(order.status).toBe('completed');
    expect(order.reviewReason).toMatch(/no reversal seen within the poll horizon/);
    expect(order.nextPollAt).toBeNull();
    const flagged = await dataSource
      .getRepository(OrderEventEntity)
      .findBy({ orderId: paid.id, type: 'flagged_for_review' });
    expect(flagged).toHaveLength(1);
    expect(flagged[0].source).toBe('poll');
    const outbox = await dataSource.getRepository(OutboxEventEntity).findBy({ orderId: paid.id });
    expect(outbox.map((event) => event.type).sort()).toEqual([
      'order.completed',
      'order.review_required',
    ]);
  });
});
