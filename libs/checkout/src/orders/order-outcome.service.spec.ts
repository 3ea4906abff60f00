import { DataSource, EntityManager } from 'typeorm';
import { MerchantReference, Money } from '@app/domain';
import { GatewayAccounts, TransactionRecord } from '@app/gateway-client';
import { OrderEntity, OrderRepository, RefundEntity, runPrepared } from '@app/persistence';
import { OrderOutcomeService } from './order-outcome.service';
import { integrityMismatch } from './outcome-plan';
import { ACCEPTED_CHECKOUT, lookupFor, recordFor } from '../../../../test/support/builders';
import { fakeJournal } from '../../../../test/support/journal-fake';

// The lock-free path writes with a prepared statement straight on the driver's pool; only that
// call is replaced, so the fast path's version guard can be tested without a database.
jest.mock('@app/persistence', () => ({
  ...jest.requireActual<object>('@app/persistence'),
  runPrepared: jest.fn(),
}));
const prepared = jest.mocked(runPrepared);

const ORDER_ID = 'e0000000-0000-4000-8000-000000000005';
const PAID_AT = new Date('2026-01-02T09:30:00.000Z');

function pendingOrder(overrides: Partial<OrderEntity> = {}): OrderEntity {
  return Object.assign(new OrderEntity(), {
    id: ORDER_ID,
    merchantReference: 'ORDER-5',
    orderTrackingId: 'track-5',
    pushMerchantReference: null,
    ...ACCEPTED_CHECKOUT,
    confirmationCode: null,
    paymentMethod: null,
    paymentAccount: null,
    paidAmount: null,
    paidCurrency: null,
    paidAt: null,
    failureReason: null,
    failedAt: null,
    reversedAt: null,
    needsReview: false,
    reviewReason: null,
    redirectUrl: null,
    businessNumber: null,
    pushAccountNumber: null,
    nextPollAt: new Date('2026-01-02T09:31:00.000Z'),
    lastCheckedAt: null,
    version: 3,
    createdAt: new Date('2026-01-02T09:29:00.000Z'),
    updatedAt: new Date('2026-01-02T09:29:00.000Z'),
    ...overrides,
  });
}

/**
 * One order row behind the repository's row lock, a refund for it if given, and a manager whose
 * outcome write answers like the database: one row at the next version.
 */
function harness(stored: OrderEntity | null, refund: RefundEntity | null = null) {
  const writes: unknown[][] = [];
  const manager = {
    query: jest.fn(async (_sql: string, values: unknown[]) => {
      writes.push(values);
      return [{ version: Number(values[1]) + 1 }];
    }),
    getRepository: (entity: unknown) => {
      if (entity !== RefundEntity) throw new Error('only refunds are saved here');
      return { save: jest.fn(async (saved: RefundEntity) => saved) };
    },
  };
  const dataSource = {
    transaction: jest.fn(<T>(work: (m: EntityManager) => Promise<T>) =>
      work(manager as unknown as EntityManager),
    ),
  };
  const orders = {
    lockById: jest.fn(async (id: string) => (stored && stored.id === id ? stored : null)),
    refundFor: jest.fn(async () => refund),
  };
  const { journal, journalled, asJournal } = fakeJournal();
  const service = new OrderOutcomeService(
    dataSource as unknown as DataSource,
    orders as unknown as OrderRepository,
    asJournal,
    // Single-attempt orders only: nothing here sets an attempt aside at the gateway.
    {} as GatewayAccounts,
  );
  return { service, manager, dataSource, journal, journalled, writes };
}

/** The merchant event a write carried, as the shop will receive it. */
function announcedPayload(values: unknown[]): Record<string, unknown> | undefined {
  const payload = values.find((value) => typeof value === 'string' && value.startsWith('{"order"'));
  return payload === undefined
    ? undefined
    : (JSON.parse(payload as string) as Record<string, unknown>);
}

describe('OrderOutcomeService.apply', () => {
  beforeEach(() => prepared.mockReset());

  it('moves a pending order to completed once, with the paid amount exactly as reported', async () => {
    const order = pendingOrder();
    const h = harness(order);

    const result = await h.service.apply(ORDER_ID, lookupFor(order, 'completed'), 'poll');

    expect(result).toMatchObject({ kind: 'transitioned', from: 'pending', to: 'completed' });
    expect(order).toMatchObject({
      status: 'completed',
      confirmationCode: '1234567890123456789012',
      paidAmount: '1500.00',
      paidCurrency: 'KES',
      paidAt: PAID_AT,
      paymentMethod: 'Visa',
      nextPollAt: null,
      version: 4,
    });
    expect(h.writes).toHaveLength(1);
    // The transition's timeline event and its merchant event go with the change.
    expect(h.writes[0]).toEqual(expect.arrayContaining(['status_changed', 'order.completed']));
    expect(announcedPayload(h.writes[0])).toMatchObject({
      order: { reference: 'ORDER-5', status: 'completed', paid_amount: '1500.00' },
    });
  });

  it("keeps the first 100 characters of a long failure description (the column's size)", async () => {
    const order = pendingOrder();
    const h = harness(order);
    const description = `Declined: ${'x'.repeat(200)}`;

    await h.service.apply(ORDER_ID, lookupFor(order, 'failed', { description }), 'poll');

    expect(order.status).toBe('failed');
    expect(order.failureReason).toBe(description.slice(0, 100));
  });

  it('answers a duplicate completed lookup with unchanged and announces nothing again', async () => {
    const order = pendingOrder();
    const h = harness(order);
    const lookup = lookupFor(order, 'completed');
    await h.service.apply(ORDER_ID, lookup, 'poll');

    const again = await h.service.apply(ORDER_ID, lookup, 'ipn');

    expect(again).toMatchObject({ kind: 'unchanged' });
    expect(order.status).toBe('completed');
    expect(h.writes).toHaveLength(2);
    // The second write only notes the check: no timeline event, no merchant event.
    expect(h.writes[1]).not.toContain('status_changed');
    expect(announcedPayload(h.writes[1])).toBeUndefined();
  });

  it('flags a completed lookup for another amount instead of completing the order', async () => {
    const order = pendingOrder();
    const h = harness(order);
    const record = recordFor(order, 'completed', { amount: Money.of('1500.01', 'KES') });

    const result = await h.service.apply(ORDER_ID, { kind: 'found', record }, 'ipn');

    expect(result).toMatchObject({ kind: 'flagged' });
    const reason = result.kind === 'flagged' ? result.reason : '';
    expect(reason).toContain('amount: ours 1500.00, gateway 1500.01');
    expect(h.journal.flagForReview).toHaveBeenCalledWith(
      h.manager,
      order,
      reason,
      'ipn',
      record.raw,
    );
    expect(order.status).toBe('pending');
    expect(order.paidAmount).toBeNull();
    expect(h.writes).toHaveLength(0);
  });

  it('does not flag a pending lookup whose amount differs: nothing was paid yet', async () => {
    const order = pendingOrder();
    const h = harness(order);

    const result = await h.service.apply(
      ORDER_ID,
      lookupFor(order, 'pending', { amount: Money.of('1.00', 'KES') }),
      'poll',
    );

    expect(result).toMatchObject({ kind: 'unchanged' });
    expect(h.journal.flagForReview).not.toHaveBeenCalled();
  });

  it('settles an open refund through the journal when the gateway reports the reversal', async () => {
    const order = pendingOrder({
      status: 'completed',
      confirmationCode: '1234567890123456789012',
      paidAmount: '1500.00',
      paidCurrency: 'KES',
      paidAt: PAID_AT,
      nextPollAt: null,
    });
    const refund = Object.assign(new RefundEntity(), {
      id: 'f0000000-0000-4000-8000-000000000006',
      orderId: ORDER_ID,
      status: 'accepted',
      amount: '1500.00',
      currency: 'KES',
      isPartial: false,
      reason: 'returned',
      requestedBy: 'alice@shop.example',
      gatewayStatus: '200',
      gatewayMessage: 'ok',
      acceptedAt: new Date('2026-01-03T08:00:00.000Z'),
      rejectedAt: null,
      reversedAt: null,
      createdAt: new Date('2026-01-03T08:00:00.000Z'),
    });
    const h = harness(order, refund);

    const result = await h.service.apply(ORDER_ID, lookupFor(order, 'reversed'), 'poll');

    expect(result).toMatchObject({ kind: 'transitioned', from: 'completed', to: 'reversed' });
    expect(refund.status).toBe('reversed');
    expect(refund.reversedAt).toEqual(order.reversedAt);
    expect(h.journalled).toEqual([
      {
        entry: expect.objectContaining({
          type: 'refund_reversed',
          source: 'poll',
          details: { refund_id: refund.id, amount: '1500.00', currency: 'KES' },
        }),
        announced: expect.objectContaining({ type: 'refund.reversed' }),
      },
    ]);
    // The order's own reversal event names the refund as settled too.
    expect(h.writes[0]).toEqual(expect.arrayContaining(['status_changed', 'order.reversed']));
    expect(announcedPayload(h.writes[0])).toMatchObject({
      order: { status: 'reversed', refund: { id: refund.id, status: 'reversed' } },
    });
  });

  it('answers order_missing for an order that is not there, writing nothing', async () => {
    const h = harness(null);

    const result = await h.service.apply(ORDER_ID, lookupFor(pendingOrder(), 'completed'), 'poll');

    expect(result).toEqual({ kind: 'order_missing' });
    expect(h.writes).toHaveLength(0);
    expect(h.journal.record).not.toHaveBeenCalled();
  });

  describe('with the order as the caller read it', () => {
    it('writes in one prepared statement, without a transaction, and leaves the caller copy alone', async () => {
      const seen = pendingOrder();
      const h = harness(pendingOrder());
      // The statement's answer: the changed order at its next version, no inbox rows to mark.
      prepared.mockResolvedValueOnce([{ id: ORDER_ID, version: 4, covered: [] }]);

      const result = await h.service.apply(ORDER_ID, lookupFor(seen, 'completed'), 'ipn', seen);

      expect(result).toMatchObject({ kind: 'transitioned', from: 'pending', to: 'completed' });
      expect(result.kind === 'transitioned' && result.order.version).toBe(4);
      expect(prepared).toHaveBeenCalledTimes(1);
      expect(h.dataSource.transaction).not.toHaveBeenCalled();
      expect(seen).toMatchObject({ status: 'pending', paidAmount: null, version: 3 });
    });

    it('decides again under the row lock when the row moved on since it was read', async () => {
      const seen = pendingOrder();
      // Another lookup completed the order meanwhile: the row is at a later version.
      const current = pendingOrder({
        status: 'completed',
        paidAmount: '1500.00',
        paidCurrency: 'KES',
        nextPollAt: null,
        version: 4,
      });
      const h = harness(current);
      prepared.mockResolvedValueOnce([]);

      const result = await h.service.apply(ORDER_ID, lookupFor(seen, 'completed'), 'ipn', seen);

      expect(result).toMatchObject({ kind: 'unchanged' });
      expect(h.dataSource.transaction).toHaveBeenCalledTimes(1);
      expect(h.writes).toHaveLength(1);
      expect(h.writes[0]).not.toContain('status_changed');
    });
  });
});

describe('integrityMismatch', () => {
  const order = pendingOrder();
  const recordOf = (overrides: Partial<TransactionRecord>) =>
    recordFor(order, 'completed', overrides);

  it('accepts the same amount, currency and reference, however they are spelt', () => {
    expect(integrityMismatch(order, recordOf({}))).toBeNull();
    expect(
      integrityMismatch(order, recordOf({ amount: Money.of('1500', 'kes'), currency: 'kes' })),
    ).toBeNull();
  });

  it.each([
    ['amount', { amount: Money.of('1499.99', 'KES') }, 'amount: ours 1500.00, gateway 1499.99'],
    [
      'currency',
      { amount: Money.of('1500.00', 'USD'), currency: 'USD' },
      'currency: ours KES, gateway USD',
    ],
    [
      'merchant reference',
      { merchantReference: MerchantReference('ORDER-6') },
      'merchant reference: ours ORDER-5, gateway ORDER-6',
    ],
  ])('names both sides of a different %s', (_field, overrides, problem) => {
    expect(integrityMismatch(order, recordOf(overrides))).toBe(
      `lookup does not match the order (${problem})`,
    );
  });
});
