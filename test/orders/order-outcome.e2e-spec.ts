import type { GatewayAccounts } from '@app/gateway-client';
import { DataSource } from 'typeorm';
import { Money } from '@app/domain';
import { OrderJournal } from '@app/checkout/orders/order-journal';
import { OrderOutcomeService } from '@app/checkout/orders/order-outcome.service';
import { randomUUID } from 'node:crypto';
import {
  driverPool,
  OrderEntity,
  OrderEventEntity,
  OrderRepository,
  OutboxEventEntity,
  RefundEntity,
} from '@app/persistence';
import { givenOrder, lookupFor } from '../support/builders';
import { openTestDataSource } from '../support/database';

describe('applying lookup outcomes to orders (real Postgres)', () => {
  let dataSource: DataSource;
  let outcomes: OrderOutcomeService;

  beforeAll(async () => {
    dataSource = await openTestDataSource();
    outcomes = new OrderOutcomeService(
      dataSource,
      new OrderRepository(dataSource),
      new OrderJournal(),
      // Single-attempt orders only: nothing here sets an attempt aside at the gateway.
      {} as GatewayAccounts,
    );
  });
  afterAll(() => dataSource.destroy());

  const eventsOf = (orderId: string) =>
    dataSource.getRepository(OrderEventEntity).find({ where: { orderId } });
  const outboxOf = (orderId: string) =>
    dataSource.getRepository(OutboxEventEntity).find({ where: { orderId } });
  const reload = (orderId: string) =>
    dataSource.getRepository(OrderEntity).findOneByOrFail({ id: orderId });

  it('completes a pending order with the payment details, one event and one merchant event', async () => {
    const order = await givenOrder(dataSource);
    const result = await outcomes.apply(order.id, lookupFor(order, 'completed'), 'ipn');
    expect(result.kind).toBe('transitioned');
    const saved = await reload(order.id);
    expect(saved).toMatchObject({
      status: 'completed',
      confirmationCode: '1234567890123456789012',
      paymentMethod: 'Visa',
      paidAmount: '1500.00',
      paidCurrency: 'KES',
      nextPollAt: null,
    });
    expect(saved.paidAt?.toISOString()).toBe('2026-01-02T09:30:00.000Z');
    const events = await eventsOf(order.id);
    expect(events.map((e) => [e.type, e.fromStatus, e.toStatus, e.source])).toEqual([
      ['status_changed', 'pending', 'completed', 'ipn'],
    ]);
    expect(events[0].gatewayRecord).toMatchObject({ status_code: 1 });
    expect((await outboxOf(order.id)).map((e) => e.type)).toEqual(['order.completed']);
  });

  it('applies 100 concurrent identical outcomes as one transition and one event', async () => {
    const order = await givenOrder(dataSource);
    const results = await Promise.all(
      Array.from({ length: 100 }, () =>
        outcomes.apply(order.id, lookupFor(order, 'completed'), 'ipn'),
      ),
    );
    expect(results.filter((r) => r.kind === 'transitioned')).toHaveLength(1);
    expect(results.filter((r) => r.kind === 'unchanged')).toHaveLength(99);
    expect(await eventsOf(order.id)).toHaveLength(1);
    expect(await outboxOf(order.id)).toHaveLength(1);
  });

  it('applies a lookup to the order as read before it without taking the row lock', async () => {
    const order = await givenOrder(dataSource);
    const seen = await reload(order.id);
    // A path that took the row lock would wait here instead of finishing.
    const blocker = dataSource.createQueryRunner();
    await blocker.connect();
    await blocker.startTransaction();
    try {
      // FOR KEY SHARE blocks FOR UPDATE (the row lock) but not a plain UPDATE of other columns.
      await blocker.query('SELECT 1 FROM orders WHERE id = $1 FOR KEY SHARE', [order.id]);
      const result = await Promise.race([
        outcomes.apply(order.id, lookupFor(order, 'completed'), 'ipn', seen),
        new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 2000)),
      ]);
      expect(result).not.toBe('waited');
    } finally {
      await blocker.rollbackTransaction();
      await blocker.release();
    }
    const saved = await reload(order.id);
    expect(saved.status).toBe('completed');
    expect(saved.version).toBe(seen.version + 1);
    expect(seen.status).toBe('pending');
    expect((await eventsOf(order.id)).map((e) => e.toStatus)).toEqual(['completed']);
    expect((await outboxOf(order.id)).map((e) => e.type)).toEqual(['order.completed']);
  });

  it('writes the outcomes applied at once in one statement, each with its own events, and marks the notifications each lookup answered', async () => {
    const orders = await Promise.all(Array.from({ length: 4 }, () => givenOrder(dataSource)));
    const seen = await Promise.all(orders.map((order) => reload(order.id)));
    // Another lookup moves the last one on after it was read: its write must change nothing.
    await outcomes.apply(orders[3].id, lookupFor(orders[3], 'failed'), 'poll');
    /** Inbox rows of an order: one received before its lookup started, one after. */
    const inbox = async (order: OrderEntity) => {
      const [early, late] = [randomUUID(), randomUUID()];
      await dataSource.query(
        `INSERT INTO ipn_notifications (id, order_tracking_id, merchant_reference,
                                        notification_type, http_method, payload, status,
                                        received_at)
         VALUES ($1, $3, $4, 'IPNCHANGE', 'GET', '{}', 'queued', now() - interval '1 minute'),
                ($2, $3, $4, 'IPNCHANGE', 'GET', '{}', 'queued', now() + interval '1 minute')`,
        [early, late, order.orderTrackingId, order.merchantReference],
      );
      return { early, late };
    };
    const rows = await Promise.all(orders.map(inbox));
    const statusOf = async (id: string) =>
      (
        (await dataSource.query('SELECT status FROM ipn_notifications WHERE id = $1', [id])) as {
          status: string;
        }[]
      )[0].status;

    const pool = driverPool(dataSource);
    const sent = jest.spyOn(pool, 'query');
    const covers = orders.map((order, i) => ({
      orderTrackingId: order.orderTrackingId,
      receivedUpTo: new Date(),
      // The late row waits on this lookup too (it joined it), so it is marked by id.
      notificationIds: new Set(i === 0 ? [rows[i].early, rows[i].late] : [rows[i].early]),
      covered: new Set<string>(),
    }));
    const results = await Promise.all(
      orders.map((order, i) =>
        outcomes.apply(order.id, lookupFor(order, 'completed'), 'ipn', seen[i], covers[i]),
      ),
    );
    // The first waited UNHURRIED_GATHER_MS for company: the four share one statement.
    const writes = sent.mock.calls.filter(
      ([config]) => (config as { name?: string }).name === 'order-outcomes-write',
    );
    sent.mockRestore();
    expect(writes).toHaveLength(1);
    // Its one parameter of rows holds the four orders.
    expect(JSON.parse((writes[0][0] as { values: string[] }).values[0])).toHaveLength(4);

    expect(results.map((result) => result.kind)).toEqual([
      'transitioned',
      'transitioned',
      'transitioned',
      'transitioned', // failed -> completed, decided again under the row lock
    ]);
    for (const order of orders) {
      expect((await reload(order.id)).status).toBe('completed');
      expect((await outboxOf(order.id)).map((e) => e.type)).toContain('order.completed');
    }
    expect((await eventsOf(orders[1].id)).map((e) => e.toStatus)).toEqual(['completed']);
    // Written through the batch: its values typed as the columns are, its jsonb ones as objects.
    const paid = await reload(orders[1].id);
    expect(paid).toMatchObject({ paidAmount: '1500.00', paidCurrency: 'KES', failureReason: null });
    expect(paid.paidAt?.toISOString()).toBe('2026-01-02T09:30:00.000Z');
    const [event] = await eventsOf(orders[1].id);
    expect(event.gatewayRecord).toMatchObject({ status_code: 1 });
    expect(event.details).toEqual({});
    const [merchantEvent] = await outboxOf(orders[1].id);
    expect(merchantEvent.payload).toMatchObject({
      order: {
        reference: orders[1].merchantReference,
        status: 'completed',
        paid_amount: '1500.00',
      },
    });
    expect((await eventsOf(orders[3].id)).map((e) => e.toStatus).sort()).toEqual([
      'completed',
      'failed',
    ]);
    expect([...covers[0].covered].sort()).toEqual([rows[0].early, rows[0].late].sort());
    expect([...covers[1].covered]).toEqual([rows[1].early]);
    expect(await statusOf(rows[1].early)).toBe('applied');
    // Received after the lookup started and not waiting on it: left to its own verification.
    expect(await statusOf(rows[1].late)).toBe('queued');
    // The locked path marks nothing: the verifier marks its own rows then.
    expect(covers[3].covered.size).toBe(0);
    expect(await statusOf(rows[3].early)).toBe('queued');
  });

  it('decides again under the row lock when the order changed after it was read', async () => {
    const order = await givenOrder(dataSource);
    const stale = await reload(order.id);
    await outcomes.apply(order.id, lookupFor(order, 'completed'), 'ipn');
    // Planned on the stale copy this would be pending -> failed; the row is completed by now.
    const result = await outcomes.apply(order.id, lookupFor(order, 'failed'), 'poll', stale);
    expect(result.kind).toBe('unchanged');
    expect((await reload(order.id)).status).toBe('completed');
    expect((await eventsOf(order.id)).map((e) => e.toStatus)).toEqual(['completed']);
    expect((await outboxOf(order.id)).map((e) => e.type)).toEqual(['order.completed']);
  });

  it('never moves a completed order back when an older pending or failed result arrives late', async () => {
    const order = await givenOrder(dataSource);
    await outcomes.apply(order.id, lookupFor(order, 'completed'), 'ipn');
    await outcomes.apply(order.id, lookupFor(order, 'pending'), 'poll');
    await outcomes.apply(order.id, lookupFor(order, 'failed'), 'poll');
    expect((await reload(order.id)).status).toBe('completed');
    expect(await eventsOf(order.id)).toHaveLength(1);
  });

  it('lets a failed order complete later and keeps the decline reason on the failure event', async () => {
    const order = await givenOrder(dataSource, { kind: 'mobile_money' });
    await outcomes.apply(
      order.id,
      lookupFor(order, 'failed', { paymentStatusCode: 'request_terminated_by_user' }),
      'ipn',
    );
    expect((await reload(order.id)).failureReason).toBe('request_terminated_by_user');
    await outcomes.apply(order.id, lookupFor(order, 'completed'), 'poll');
    const saved = await reload(order.id);
    expect(saved.status).toBe('completed');
    expect(saved.failureReason).toBeNull();
    expect((await eventsOf(order.id)).map((e) => e.toStatus)).toEqual(['failed', 'completed']);
    expect((await outboxOf(order.id)).map((e) => e.type).sort()).toEqual([
      'order.completed',
      'order.failed',
    ]);
  });

  it('flags instead of completing when the gateway reports another amount, naming both', async () => {
    const order = await givenOrder(dataSource);
    const result = await outcomes.apply(
      order.id,
      lookupFor(order, 'completed', { amount: Money.of('15.00', 'KES') }),
      'ipn',
    );
    expect(result.kind).toBe('flagged');
    const saved = await reload(order.id);
    expect(saved.status).toBe('pending');
    expect(saved.needsReview).toBe(true);
    expect(saved.reviewReason).toContain('amount: ours 1500.00, gateway 15.00');
    await outcomes.apply(
      order.id,
      lookupFor(order, 'completed', { amount: Money.of('15.00', 'KES') }),
      'poll',
    );
    expect((await eventsOf(order.id)).map((e) => e.type)).toEqual(['flagged_for_review']);
  });

  it('flags a lookup in another currency or for another merchant reference', async () => {
    const order = await givenOrder(dataSource);
    await outcomes.apply(
      order.id,
      lookupFor(order, 'completed', { currency: 'USD', amount: Money.of('1500', 'USD') }),
      'ipn',
    );
    expect((await reload(order.id)).reviewReason).toContain('currency: ours KES, gateway USD');

    const other = await givenOrder(dataSource);
    await outcomes.apply(
      other.id,
      lookupFor(other, 'completed', { merchantReference: 'someone-else' as never }),
      'ipn',
    );
    const saved = await reload(other.id);
    expect(saved.status).toBe('pending');
    expect(saved.reviewReason).toContain('gateway someone-else');
  });

  it('marks an accepted refund reversed when the gateway reports the payment reversed', async () => {
    const order = await givenOrder(dataSource);
    await outcomes.apply(order.id, lookupFor(order, 'completed'), 'ipn');
    await dataSource.getRepository(RefundEntity).insert({
      orderId: order.id,
      confirmationCode: `cc-${order.id}`,
      amount: '1500.00',
      currency: 'KES',
      isPartial: false,
      reason: 'customer asked',
      requestedBy: 'alice',
      adminKeyName: 'ops',
      status: 'accepted',
    });
    await outcomes.apply(order.id, lookupFor(order, 'reversed'), 'poll');
    expect((await reload(order.id)).status).toBe('reversed');
    const refund = await dataSource
      .getRepository(RefundEntity)
      .findOneByOrFail({ orderId: order.id });
    expect(refund.status).toBe('reversed');
    expect((await outboxOf(order.id)).map((e) => e.type).sort()).toEqual([
      'order.completed',
      'order.reversed',
      'refund.reversed',
    ]);
  });

  it('learns the tracking id of an order whose creation answer was lost', async () => {
    const order = await givenOrder(dataSource, {
      orderTrackingId: null,
      submissionStatus: 'unknown',
    });
    const lookup = lookupFor(
      { ...order, orderTrackingId: 'b0b8e2a4-3c1d-4e5f-8a9b-0c1d2e3f4a5b' },
      'pending',
    );
    await outcomes.apply(order.id, lookup, 'poll');
    const saved = await reload(order.id);
    expect(saved.orderTrackingId).toBe('b0b8e2a4-3c1d-4e5f-8a9b-0c1d2e3f4a5b');
    expect(saved.submissionStatus).toBe('submitted');
  });
});
