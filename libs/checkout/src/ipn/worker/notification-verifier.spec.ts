import type { JobProducer } from '@app/queues';
import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { loadServiceConfig } from '@app/config';
import { MerchantReference, Money, OrderTrackingId } from '@app/domain';
import { GatewayAccounts, GatewayClient, TransactionLookup } from '@app/gateway-client';
import {
  NotificationStatus,
  OrderEntity,
  OrderRepository,
  PreparedStatement,
  runPrepared,
} from '@app/persistence';
import type { OrderOutcomeService } from '../../orders/order-outcome.service';
import type { OrderLookup, OrderSyncService } from '../../orders/order-sync.service';
import type { LookupThrottle } from './lookup-throttle';
import { NotificationVerifier } from './notification-verifier';
import type { RecurringChargeRecorder } from './recurring-charge.recorder';
import type { UnmatchedPaymentLedger } from '../../unmatched-payments/unmatched-payment-ledger';

// The verifier reads its inbox row and marks the covered rows with prepared statements on the
// driver's pool; only that call is replaced (by statement name), everything else is real.
jest.mock('@app/persistence', () => ({
  ...jest.requireActual<object>('@app/persistence'),
  runPrepared: jest.fn(),
}));
const prepared = jest.mocked(runPrepared);

const CONFIG = { ...loadServiceConfig({}), unmatchedRetryMs: 1_000, pollHorizonHours: 2 };
const NOTIFICATION_ID = '10000000-0000-4000-8000-000000000009';
// Recent: a notification's age decides whether it is still worth retrying.
const READ_AT = new Date();

function order(): OrderEntity {
  return Object.assign(new OrderEntity(), {
    gatewayAccount: 'default',
    id: '20000000-0000-4000-8000-000000000009',
    merchantReference: 'ORDER-9',
    orderTrackingId: 'track-9',
    status: 'pending',
    amount: '250.00',
    currency: 'KES',
  });
}

interface InboxRow {
  status: NotificationStatus;
  attempts: number;
  receivedAt: Date;
  type: string | null;
}

/** A lookup of the order that started at `startedAt` and has applied its answer. */
function lookupStartedAt(startedAt: Date, of: OrderEntity): OrderLookup {
  return {
    phase: 'started',
    startedAt,
    notifications: new Set(),
    // Nothing marked by the outcome's write: the verifier marks its rows itself.
    done: Promise.resolve({
      startedAt,
      result: { kind: 'unchanged', order: of },
      covered: new Set(),
    }),
  };
}

/**
 * The inbox row (and the order it names, if any) as the read statement would answer it, and
 * hand-written fakes of the verifier's ports. `covered` holds each cover statement's values.
 */
function harness(named: OrderEntity | null, inbox: Partial<InboxRow> = {}) {
  const row: InboxRow = {
    status: 'queued',
    attempts: 0,
    receivedAt: new Date(READ_AT.getTime() - 200),
    type: 'CHANGE',
    ...inbox,
  };
  const covered: unknown[][] = [];
  prepared.mockImplementation((async (
    _dataSource: DataSource,
    statement: PreparedStatement,
    values: unknown[],
  ) => {
    if (statement.name !== 'inbox-read-with-order') {
      covered.push(values);
      return [];
    }
    return [
      {
        inbox_id: NOTIFICATION_ID,
        inbox_tracking_id: 'track-9',
        inbox_reference: 'ORDER-9',
        inbox_type: row.type,
        inbox_status: row.status,
        inbox_attempts: row.attempts,
        inbox_received_at: row.receivedAt,
        inbox_read_at: READ_AT,
        id: named?.id ?? null,
      },
    ];
  }) as typeof runPrepared);

  const dataSource = {
    getMetadata: () => ({ columns: [] }),
    query: jest.fn(async (_sql: string, _values: unknown[]) => []),
  };
  const orders = {
    hydrate: jest.fn(() => named),
    findByAnyReference: jest.fn(async (_reference: string): Promise<OrderEntity | null> => null),
    findBySubscriptionAccount: jest.fn(async () => null),
    findEarlierAttempt: jest.fn(async () => null),
  };
  const sync = {
    covering: jest.fn((_orderId: string, _since: Date): OrderLookup | undefined => undefined),
    begin: jest.fn((of: OrderEntity, _source: string, notBefore?: Date) =>
      lookupStartedAt(notBefore ?? READ_AT, of),
    ),
  };
  const outcomes = { apply: jest.fn(async () => ({ kind: 'unchanged' })) };
  const gateway = {
    getTransactionStatus: jest.fn(async (_id: OrderTrackingId): Promise<TransactionLookup> => ({
      kind: 'not_found',
    })),
  };
  const throttle = { reserve: jest.fn(async (_orderId: string) => 0) };
  const recurring = { record: jest.fn() };
  const unmatchedPayments = { keep: jest.fn(async () => true) };
  const jobs = { add: jest.fn(async () => undefined) };

  const verifier = new NotificationVerifier(
    dataSource as unknown as DataSource,
    orders as unknown as OrderRepository,
    sync as unknown as OrderSyncService,
    outcomes as unknown as OrderOutcomeService,
    GatewayAccounts.single(gateway as unknown as GatewayClient),
    throttle as unknown as LookupThrottle,
    recurring as unknown as RecurringChargeRecorder,
    unmatchedPayments as unknown as UnmatchedPaymentLedger,
    jobs as unknown as JobProducer,
    CONFIG,
  );
  const verify = () =>
    verifier.verify({ notificationId: NOTIFICATION_ID, orderKey: 'track-9', attempt: 1 });
  return {
    verifier,
    verify,
    row,
    covered,
    dataSource,
    orders,
    sync,
    outcomes,
    gateway,
    throttle,
    unmatchedPayments,
  };
}

describe('NotificationVerifier.verify', () => {
  afterEach(() => prepared.mockReset());

  it('joins a lookup that started after the notification arrived, without reserving another', async () => {
    const named = order();
    const h = harness(named);
    const startedAt = new Date(READ_AT.getTime() - 100);
    h.sync.covering.mockReturnValue(lookupStartedAt(startedAt, named));

    await expect(h.verify()).resolves.toBeUndefined();

    expect(h.sync.covering).toHaveBeenCalledWith(named.id, h.row.receivedAt);
    expect(h.throttle.reserve).not.toHaveBeenCalled();
    expect(h.sync.begin).not.toHaveBeenCalled();
    // Marks this row, and the order's rows received before that lookup started, applied.
    expect(h.covered).toEqual([[named.id, 'track-9', startedAt, NOTIFICATION_ID]]);
  });

  it('reserves a lookup through the throttle and starts it from the time the row was read', async () => {
    const named = order();
    const h = harness(named);

    await h.verify();

    expect(h.throttle.reserve).toHaveBeenCalledWith(named.id);
    expect(h.sync.begin).toHaveBeenCalledWith(named, 'ipn', READ_AT);
    expect(h.covered).toEqual([[named.id, 'track-9', READ_AT, NOTIFICATION_ID]]);
  });

  it('joins a lookup that began while it waited for the throttle instead of starting one', async () => {
    const named = order();
    const h = harness(named);
    const startedAt = new Date(READ_AT.getTime() + 50);
    h.sync.covering
      .mockReturnValueOnce(undefined)
      .mockReturnValueOnce(lookupStartedAt(startedAt, named));

    await h.verify();

    expect(h.throttle.reserve).toHaveBeenCalledTimes(1);
    expect(h.sync.begin).not.toHaveBeenCalled();
    expect(h.covered).toEqual([[named.id, 'track-9', startedAt, NOTIFICATION_ID]]);
  });

  it('asks to run later, without looking up, when the throttle says to wait', async () => {
    const named = order();
    const h = harness(named);
    h.throttle.reserve.mockResolvedValueOnce(700);

    await expect(h.verify()).resolves.toEqual({ runLaterMs: 700 });

    expect(h.sync.begin).not.toHaveBeenCalled();
    expect(h.gateway.getTransactionStatus).not.toHaveBeenCalled();
    expect(h.covered).toEqual([]);
  });

  it('leaves a row that is no longer open alone (a redelivered job)', async () => {
    const h = harness(order(), { status: 'applied' });

    await expect(h.verify()).resolves.toBeUndefined();

    expect(h.sync.covering).not.toHaveBeenCalled();
    expect(h.throttle.reserve).not.toHaveBeenCalled();
    expect(h.dataSource.query).not.toHaveBeenCalled();
  });

  describe('a notification that names no order of ours', () => {
    // Each retry is logged; keep the test output quiet.
    beforeEach(() => {
      jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
      jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    });
    afterEach(() => jest.restoreAllMocks());

    // The first try only waits (the creation answer may still be on its way); later ones ask the
    // gateway about the tracking id, and the wait doubles up to an hour.
    it.each([
      { earlier: 0, asks: false, waitSeconds: 1 },
      { earlier: 2, asks: true, waitSeconds: 4 },
      { earlier: 30, asks: true, waitSeconds: 3_600 },
    ])(
      'after $earlier earlier attempts is retried in $waitSeconds s (gateway asked: $asks)',
      async ({ earlier, asks, waitSeconds }) => {
        const h = harness(null, { attempts: earlier });

        await h.verify();

        expect(h.gateway.getTransactionStatus).toHaveBeenCalledTimes(asks ? 1 : 0);
        expect(h.dataSource.query).toHaveBeenCalledTimes(1);
        expect(h.dataSource.query.mock.calls[0][1]).toEqual([
          NOTIFICATION_ID,
          'unmatched',
          earlier + 1,
          'no order of ours carries these references',
          waitSeconds,
        ]);
        expect(h.covered).toEqual([]);
      },
    );

    it('is marked failed once it is older than the poll horizon', async () => {
      const receivedAt = new Date(Date.now() - 3 * 3_600_000);
      const h = harness(null, { attempts: 5, receivedAt });

      await h.verify();

      expect(h.dataSource.query.mock.calls[0][1]).toEqual([
        NOTIFICATION_ID,
        'failed',
        6,
        'never matched an order of ours',
        32, // still computed (1 s × 2⁵), but a failed row gets no next attempt
      ]);
    });

    it("adopts our order when the gateway's record of the tracking id carries our reference", async () => {
      const ours = order();
      const h = harness(null, { attempts: 1 });
      const found = completedLookup('ORDER-9');
      h.gateway.getTransactionStatus.mockResolvedValueOnce(found);
      h.orders.findByAnyReference.mockResolvedValueOnce(ours);

      await h.verify();

      expect(h.gateway.getTransactionStatus).toHaveBeenCalledWith('track-9');
      expect(h.orders.findByAnyReference).toHaveBeenCalledWith('ORDER-9');
      expect(h.outcomes.apply).toHaveBeenCalledWith(ours.id, found, 'ipn');
      // The row is closed as applied to that order, not rescheduled.
      expect(h.dataSource.query).toHaveBeenCalledTimes(1);
      expect(h.dataSource.query.mock.calls[0][1]).toEqual([NOTIFICATION_ID, ours.id]);
    });

    it('keeps a completed payment no order of ours carries as a payment without an order', async () => {
      const h = harness(null, { attempts: 1 });
      const found = completedLookup('DASH-1');
      h.gateway.getTransactionStatus.mockResolvedValueOnce(found);

      await h.verify();

      expect(h.unmatchedPayments.keep).toHaveBeenCalledWith(
        NOTIFICATION_ID,
        'default',
        found.record,
      );
      // Kept (and the row applied) by the ledger's statement: neither retried nor adopted.
      expect(h.outcomes.apply).not.toHaveBeenCalled();
      expect(h.dataSource.query).not.toHaveBeenCalled();
    });

    it("keeps it when the reference is another account's order's", async () => {
      const h = harness(null, { attempts: 1 });
      h.gateway.getTransactionStatus.mockResolvedValueOnce(completedLookup('ORDER-9'));
      h.orders.findByAnyReference.mockResolvedValueOnce(
        Object.assign(order(), { gatewayAccount: 'ug' }),
      );

      await h.verify();

      expect(h.unmatchedPayments.keep).toHaveBeenCalledTimes(1);
      expect(h.outcomes.apply).not.toHaveBeenCalled();
    });

    it('keeps waiting while the gateway says the payment is pending', async () => {
      const h = harness(null, { attempts: 1 });
      const pending = completedLookup('DASH-2');
      h.gateway.getTransactionStatus.mockResolvedValueOnce({
        kind: 'pending',
        record: { ...pending.record, outcome: 'pending' },
      });

      await h.verify();

      expect(h.unmatchedPayments.keep).not.toHaveBeenCalled();
      expect(h.dataSource.query.mock.calls[0][1]).toEqual([
        NOTIFICATION_ID,
        'unmatched',
        2,
        'no order of ours carries these references',
        2,
      ]);
    });
  });
});

function completedLookup(reference: string): Extract<TransactionLookup, { kind: 'found' }> {
  return {
    kind: 'found',
    record: {
      orderTrackingId: OrderTrackingId('track-9'),
      merchantReference: MerchantReference(reference),
      outcome: 'completed',
      statusCode: 1,
      statusDescription: 'Completed',
      confirmationCode: null,
      paymentMethod: 'Visa',
      paymentAccount: null,
      amount: Money.of('250.00', 'KES'),
      currency: 'KES',
      createdAt: READ_AT,
      description: null,
      paymentStatusCode: null,
      callbackUrl: null,
      accountNumber: null,
      raw: {},
    },
  };
}

describe('NotificationVerifier.exhausted', () => {
  it('marks the row failed with the last error, cut to what the column keeps', async () => {
    const h = harness(null);

    await h.verifier.exhausted(NOTIFICATION_ID, new Error('x'.repeat(600)));

    expect(h.dataSource.query).toHaveBeenCalledTimes(1);
    const [sql, values] = h.dataSource.query.mock.calls[0];
    // The status is a literal of the statement: the one part of its text worth checking.
    expect(sql).toContain("status = 'failed'");
    expect(values).toEqual([NOTIFICATION_ID, 'x'.repeat(500)]);
  });
});
