import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { serviceMetrics } from '@app/common';
import { DEFAULT_ACCOUNT, SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { cutText, OrderTrackingId } from '@app/domain';
import { GatewayAccounts } from '@app/gateway-client';
import {
  COMMIT_WITHOUT_FLUSH_WAIT,
  IpnNotificationEntity,
  OPEN_NOTIFICATION_STATUSES,
  OPEN_NOTIFICATION_STATUSES_SQL,
  NotificationStatus,
  OrderEntity,
  OrderRepository,
  PreparedStatement,
  runPrepared,
  StatementBatch,
  UNHURRIED_GATHER_MS,
} from '@app/persistence';
import { JobData, JobProducer } from '@app/queues';
import { OrderOutcomeService } from '../../orders/order-outcome.service';
import { OrderSyncService } from '../../orders/order-sync.service';
import { RECORDED_ERROR_MAX_LENGTH } from '../inbox-limits';
import { LookupThrottle } from './lookup-throttle';
import { RunLater } from '@app/queues';
import { RecurringChargeRecorder } from './recurring-charge.recorder';
import { UnmatchedPaymentLedger } from '../../unmatched-payments/unmatched-payment-ledger';

const MAX_UNMATCHED_WAIT_MS = 3_600_000;

/**
 * Inbox rows, the database clock when they were read, and the order each names. Any of our names
 * for an order finds it; one named by the tracking id wins over one named by the merchant
 * reference, the oldest over later ones. The order's columns are listed, not `o.*`: a prepared
 * statement whose result changes shape (a migration adding a column while this process runs)
 * would fail on every connection that prepared it.
 */
function readStatement(dataSource: DataSource): PreparedStatement {
  const orderColumns = dataSource
    .getMetadata(OrderEntity)
    .columns.map((column) => `o."${column.databaseName}"`)
    .join(', ');
  return {
    name: 'inbox-read-with-order',
    text: `SELECT n.id AS inbox_id, n.order_tracking_id AS inbox_tracking_id,
                  n.merchant_reference AS inbox_reference, n.notification_type AS inbox_type,
                  n.status AS inbox_status, n.attempts AS inbox_attempts,
                  n.received_at AS inbox_received_at, n.gateway_account AS inbox_account,
                  now() AS inbox_read_at, ${orderColumns}
             FROM ipn_notifications n
             LEFT JOIN LATERAL (
               SELECT * FROM orders o
                WHERE o.merchant_reference IN (n.order_tracking_id, n.merchant_reference)
                   OR o.order_tracking_id IN (n.order_tracking_id, n.merchant_reference)
                   OR o.push_merchant_reference IN (n.order_tracking_id, n.merchant_reference)
                   OR o.gateway_reference IN (n.order_tracking_id, n.merchant_reference)
                ORDER BY n.order_tracking_id IN
                           (o.merchant_reference, o.order_tracking_id, o.push_merchant_reference)
                           DESC NULLS LAST,
                         o.created_at
                LIMIT 1
             ) o ON true
            WHERE n.id = ANY($1::uuid[])`,
  };
}

/**
 * Marks applied the given row and the order's rows received up to a time, found through the
 * (tracking id, received_at) index and the key: a filter on status first would read every open
 * row of the inbox, which is the whole backlog exactly when it matters.
 */
const COVER: PreparedStatement = {
  name: 'inbox-cover',
  text: `UPDATE ipn_notifications
            SET status = 'applied', order_id = $1, processed_at = now(), attempts = attempts + 1,
                next_attempt_at = NULL
          WHERE id IN (SELECT id FROM ipn_notifications
                        WHERE order_tracking_id = $2 AND received_at <= $3
                       UNION ALL SELECT $4::uuid)
            AND status IN ${OPEN_NOTIFICATION_STATUSES_SQL}
            AND ${COMMIT_WITHOUT_FLUSH_WAIT}`,
};

/**
 * Verifies a stored notification: finds the order it names, looks it up at the gateway and
 * applies the answer. A lookup covers every notification of that order received before it
 * started, so a burst is marked applied by the one or two lookups it caused, however slow the
 * gateway: a notification joins any lookup that started after it arrived instead of asking for
 * another.
 */
@Injectable()
export class NotificationVerifier {
  private readonly logger = new Logger(NotificationVerifier.name);
  /** Verifications under way at once share one read of their rows. */
  private readonly reads: StatementBatch<string, InboxRead | undefined>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
    private readonly sync: OrderSyncService,
    private readonly outcomes: OrderOutcomeService,
    private readonly accounts: GatewayAccounts,
    private readonly throttle: LookupThrottle,
    private readonly recurring: RecurringChargeRecorder,
    private readonly unmatchedPayments: UnmatchedPaymentLedger,
    private readonly jobs: JobProducer,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {
    const statement = readStatement(dataSource);
    this.reads = new StatementBatch(
      async (ids) => {
        const rows = await runPrepared<InboxRead>(this.dataSource, statement, [ids]);
        const byId = new Map(rows.map((row) => [row.inbox_id, row]));
        return ids.map((id) => byId.get(id));
      },
      {
        maxBatch: 100,
        maxParallel: 1,
        gatherMs: UNHURRIED_GATHER_MS,
        observe: (items) =>
          serviceMetrics.sharedStatementItems.observe({ statement: 'inbox_read' }, items),
      },
    );
  }

  async verify(data: JobData['verify-notification']): Promise<RunLater | void> {
    const read = await this.read(data.notificationId);
    if (!read || !OPEN_NOTIFICATION_STATUSES.includes(read.row.status)) return;
    const { row, readAt, order } = read;
    const trackingId = row.orderTrackingId ?? '';
    const reference = row.merchantReference ?? '';

    if (row.notificationType === 'RECURRING') {
      // Subscription account numbers are the shop's: two merchants may share one.
      const first = await this.orders.findBySubscriptionAccount(
        reference,
        row.gatewayAccount ?? DEFAULT_ACCOUNT,
      );
      if (first && first.orderTrackingId !== trackingId) {
        await this.recurring.record(first, trackingId as OrderTrackingId);
        await this.finish(row.id, first.id);
        applied(row);
        return;
      }
    }

    if (!order) {
      const earlier = trackingId ? await this.orders.findEarlierAttempt(trackingId) : null;
      return earlier
        ? this.verifyEarlierAttempt(row, earlier.orderId, trackingId)
        : this.unmatched(row);
    }
    // It names another payment attempt of the order than the current one: that one is looked up.
    if (trackingId && order.orderTrackingId && trackingId !== order.orderTrackingId) {
      const earlier = await this.orders.findEarlierAttempt(trackingId);
      if (earlier?.orderId === order.id)
        return this.verifyEarlierAttempt(row, order.id, trackingId);
    }

    // A lookup that started after this notification arrived answers it: join it. Otherwise a new
    // one is needed, within the per-order interval.
    let lookup = this.sync.covering(order.id, row.receivedAt);
    if (!lookup) {
      const wait = await this.throttle.reserve(order.id);
      if (wait > 0) return { runLaterMs: wait };
      lookup =
        this.sync.covering(order.id, row.receivedAt) ?? this.sync.begin(order, 'ipn', readAt);
    }
    lookup.notifications.add(row.id);
    const { startedAt, covered } = await lookup.done;
    // Not marked by the outcome's write (it joined too late, or the locked path applied it).
    if (!covered.has(row.id)) await this.cover(order, startedAt, row.id);
    applied(row);
  }

  /**
   * A notification of an earlier attempt (a customer who tried again): rare, so looked up on its
   * own, without the per-order coalescing; the outcome service applies it to that attempt.
   */
  private async verifyEarlierAttempt(
    row: InboxRowRead,
    orderId: string,
    trackingId: string,
  ): Promise<void> {
    // The attempt is looked up on its order's account.
    const order = await this.orders.findById(orderId);
    if (!order) return this.unmatched(row);
    const lookup = await this.accounts
      .forOrder(order)
      .getTransactionStatus(trackingId as OrderTrackingId);
    const result = await this.outcomes.apply(orderId, lookup, 'ipn');
    if (
      result.kind === 'flagged' &&
      result.doublePaymentAttempt !== undefined &&
      this.config.autoRefundDoublePayments
    ) {
      // Queued before the notification counts as applied. Should the queue be down, the review
      // flag is already committed: an admin refunds it (a retry finds the payment recorded).
      await this.jobs.add('refund-double-payment', {
        orderId,
        attempt: result.doublePaymentAttempt,
      });
    }
    await this.finish(row.id, orderId);
    applied(row);
  }

  /** Marks the job's row failed once BullMQ has used every attempt (the job is dead-lettered). */
  async exhausted(notificationId: string, error: Error): Promise<void> {
    await this.dataSource.query(
      `UPDATE ipn_notifications SET status = 'failed', last_error = $2, processed_at = now()
        WHERE id = $1 AND status IN ${OPEN_NOTIFICATION_STATUSES_SQL}`,
      [notificationId, cutText(error.message, RECORDED_ERROR_MAX_LENGTH)],
    );
  }

  /**
   * Nothing of ours carries these references (yet: the creation answer may still be on its way).
   * The first time it waits; later tries look the named tracking id up and adopt the order if the
   * gateway's record carries one of our merchant references. A completed payment no order of
   * ours (on that account) carries is money received without an order: kept as a payment without
   * an order for an operator to settle, and the notification is applied. Anything else (pending,
   * failed, unknown to the gateway) is kept until the poll horizon.
   */
  private async unmatched(row: InboxRowRead): Promise<void> {
    const attempts = row.attempts + 1;
    if (attempts > 1 && row.orderTrackingId) {
      // No order of ours yet: the account whose IPN URL it came to.
      const account = row.gatewayAccount ?? DEFAULT_ACCOUNT;
      const lookup = await this.accounts
        .client(account)
        .getTransactionStatus(row.orderTrackingId as OrderTrackingId);
      if (lookup.kind !== 'not_found') {
        const ours = await this.orders.findByAnyReference(lookup.record.merchantReference);
        // Only an order of the account that answered: another account's is not this payment.
        if (ours && ours.gatewayAccount === account) {
          await this.outcomes.apply(ours.id, lookup, 'ipn');
          await this.finish(row.id, ours.id);
          applied(row);
          return;
        }
        if (lookup.kind === 'found' && lookup.record.outcome === 'completed') {
          const kept = await this.unmatchedPayments.keep(row.id, account, lookup.record);
          this.logger.warn(
            { notificationId: row.id, orderTrackingId: row.orderTrackingId, account, kept },
            'payment without an order kept for an operator to settle',
          );
          applied(row);
          return;
        }
      }
    }
    const abandoned =
      Date.now() - row.receivedAt.getTime() > this.config.pollHorizonHours * 3_600_000;
    const waitMs = Math.min(
      this.config.unmatchedRetryMs * 2 ** (attempts - 1),
      MAX_UNMATCHED_WAIT_MS,
    );
    await this.dataSource.query(
      `UPDATE ipn_notifications
          SET status = $2::varchar, attempts = $3, last_error = $4,
              next_attempt_at = CASE WHEN $2::varchar = 'failed' THEN NULL
                                     ELSE now() + make_interval(secs => $5::double precision) END
        WHERE id = $1 AND status IN ${OPEN_NOTIFICATION_STATUSES_SQL}`,
      [
        row.id,
        abandoned ? 'failed' : 'unmatched',
        attempts,
        abandoned ? 'never matched an order of ours' : 'no order of ours carries these references',
        waitMs / 1000,
      ],
    );
    this.logger.log({ notificationId: row.id, attempts }, 'notification names no known order');
  }

  /** This notification and every other one of the order received before the lookup started. */
  private async cover(order: OrderEntity, startedAt: Date, notificationId: string): Promise<void> {
    await runPrepared(this.dataSource, COVER, [
      order.id,
      order.orderTrackingId ?? '',
      startedAt,
      notificationId,
    ]);
  }

  private async finish(notificationId: string, orderId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE ipn_notifications
          SET status = 'applied', order_id = $2, processed_at = now(), attempts = attempts + 1,
              next_attempt_at = NULL, last_error = NULL
        WHERE id = $1`,
      [notificationId, orderId],
    );
  }

  /** The row, the order it names, and when it was read (a lookup begun now starts after it). */
  private async read(
    id: string,
  ): Promise<{ row: InboxRowRead; readAt: Date; order: OrderEntity | null } | null> {
    const raw = await this.reads.submit(id);
    if (!raw) return null;
    return {
      row: {
        id: raw.inbox_id,
        orderTrackingId: raw.inbox_tracking_id,
        merchantReference: raw.inbox_reference,
        notificationType: raw.inbox_type,
        status: raw.inbox_status,
        attempts: raw.inbox_attempts,
        receivedAt: raw.inbox_received_at,
        gatewayAccount: raw.inbox_account ?? null,
      },
      readAt: raw.inbox_read_at,
      order: raw.id ? this.orders.hydrate(raw) : null,
    };
  }
}

/** notification_lag_seconds: from the row being stored to its verification applied. */
function applied(row: { receivedAt: Date }): void {
  serviceMetrics.notificationLag.observe(Math.max(0, Date.now() - row.receivedAt.getTime()) / 1000);
}

/** What verification needs of an inbox row. */
type InboxRowRead = Pick<
  IpnNotificationEntity,
  | 'id'
  | 'orderTrackingId'
  | 'merchantReference'
  | 'notificationType'
  | 'status'
  | 'attempts'
  | 'receivedAt'
  | 'gatewayAccount'
>;

/** The joined row: the inbox columns under their own names, the order's (all null if none) as is. */
type InboxRead = Record<string, unknown> & {
  inbox_id: string;
  inbox_tracking_id: string | null;
  inbox_reference: string | null;
  inbox_type: string | null;
  inbox_status: NotificationStatus;
  inbox_attempts: number;
  inbox_received_at: Date;
  inbox_account?: string | null;
  inbox_read_at: Date;
};
