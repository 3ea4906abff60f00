import { Injectable, Logger } from '@nestjs/common';
import { inSpan, serviceMetrics } from '@app/common';
import { DataSource, EntityManager } from 'typeorm';
import {
  cutText,
  isRefundOpen,
  MerchantEventType,
  OrderStatus,
  OrderTrackingId,
} from '@app/domain';
import { GatewayAccounts, TransactionLookup, TransactionRecord } from '@app/gateway-client';
import {
  EventSource,
  OrderEntity,
  OrderRepository,
  PaymentAttemptEntity,
  PreparedStatement,
  RefundEntity,
  OPEN_NOTIFICATION_STATUSES_SQL,
  runPrepared,
  StatementBatch,
  UNHURRIED_GATHER_MS,
} from '@app/persistence';
import {
  announcement,
  journalledBatchStatement,
  journalledStatement,
  JournalEntry,
  journalParams,
  journalValues,
  OrderJournal,
} from './order-journal';
import {
  amountMismatch,
  copyOf,
  namesAnotherAttempt,
  type OutcomeResult,
  type Plan,
  planOutcome,
  resultOf,
} from './outcome-plan';
import { FAILURE_REASON_MAX_LENGTH } from './order-view';

const ANNOUNCED: Partial<Record<OrderStatus, MerchantEventType>> = {
  completed: 'order.completed',
  failed: 'order.failed',
  cancelled: 'order.cancelled',
  reversed: 'order.reversed',
  expired: 'order.expired',
};

/** The columns a lookup's outcome may change (a flag or a refund's reversal aside), in order. */
const OUTCOME_COLUMNS = `status = $3, payment_method = $4, payment_account = $5, confirmation_code = $6,
            paid_amount = $7, paid_currency = $8, paid_at = $9, failure_reason = $10,
            failed_at = $11, reversed_at = $12, next_poll_at = $13, last_checked_at = $14,
            order_tracking_id = $15, submission_status = $16, updated_at = $17`;
const OUTCOME_PARAMS = 17;

/**
 * Writes what a lookup changed on an order still at the version it was read at, with the
 * journal's timeline event (a transition) and merchant event (one it announces), inside the
 * locked path's transaction.
 */
const WRITE_OUTCOME_LOCKED = journalledStatement(
  `UPDATE orders SET ${OUTCOME_COLUMNS}, version = version + 1
    WHERE id = $1 AND version = $2
    RETURNING id, version`,
  OUTCOME_PARAMS,
);

/**
 * The same write for any number of orders at once (their rows one JSON parameter, so one parsed
 * statement serves every batch size), each with its journal rows, and marking applied the inbox
 * rows its lookup answered: the order's notifications received up to the lookup's start and the
 * ones that joined it. An order whose version moved on changes nothing, and marks nothing.
 */
const OUTCOMES_BATCH = journalledBatchStatement(
  [
    ['id', 'uuid'],
    ['version', 'int'],
    ['status', 'varchar'],
    ['payment_method', 'varchar'],
    ['payment_account', 'varchar'],
    ['confirmation_code', 'varchar'],
    ['paid_amount', 'numeric'],
    ['paid_currency', 'varchar'],
    ['paid_at', 'timestamptz'],
    ['failure_reason', 'varchar'],
    ['failed_at', 'timestamptz'],
    ['reversed_at', 'timestamptz'],
    ['next_poll_at', 'timestamptz'],
    ['last_checked_at', 'timestamptz'],
    ['order_tracking_id', 'varchar'],
    ['submission_status', 'varchar'],
    ['updated_at', 'timestamptz'],
  ],
  [
    ['cover_tracking_id', 'varchar'],
    ['cover_up_to', 'timestamptz'],
  ],
  `UPDATE orders o
        SET status = v.status, payment_method = v.payment_method,
            payment_account = v.payment_account, confirmation_code = v.confirmation_code,
            paid_amount = v.paid_amount, paid_currency = v.paid_currency, paid_at = v.paid_at,
            failure_reason = v.failure_reason, failed_at = v.failed_at,
            reversed_at = v.reversed_at, next_poll_at = v.next_poll_at,
            last_checked_at = v.last_checked_at, order_tracking_id = v.order_tracking_id,
            submission_status = v.submission_status, updated_at = v.updated_at,
            version = o.version + 1
       FROM v WHERE o.id = v.id AND o.version = v.version
     RETURNING o.id, o.version`,
  (next) => `,
     answered AS (
       SELECT n.id, v.id AS order_id
         FROM v JOIN changed USING (id)
         JOIN ipn_notifications n
           ON n.order_tracking_id = v.cover_tracking_id AND n.received_at <= v.cover_up_to
       UNION
       SELECT j.id, j.order_id
         FROM json_to_recordset($${next}::json) AS j(id uuid, order_id uuid)
         JOIN changed ON changed.id = j.order_id),
     covered AS (
       UPDATE ipn_notifications n
          SET status = 'applied', order_id = answered.order_id, processed_at = now(),
              attempts = n.attempts + 1, next_attempt_at = NULL
         FROM answered
        WHERE n.id = answered.id AND n.status IN ${OPEN_NOTIFICATION_STATUSES_SQL}
       RETURNING n.id, answered.order_id)
     SELECT changed.id, changed.version,
            ARRAY(SELECT covered.id FROM covered WHERE covered.order_id = changed.id) AS covered
       FROM changed`,
);

const WRITE_OUTCOMES: PreparedStatement = {
  name: 'order-outcomes-write',
  text: OUTCOMES_BATCH.text,
};

/**
 * The inbox rows a lookup answers: filled in `covered` by the outcome's write when it applied
 * (empty when the locked path applied it; the caller then marks its rows itself).
 */
export interface InboxCover {
  /** The order's tracking id (its notifications are indexed by it) and the lookup's start. */
  orderTrackingId: string | null;
  receivedUpTo: Date;
  /** Notifications waiting on the lookup, read when the write is sent. */
  notificationIds: ReadonlySet<string>;
  covered: Set<string>;
}

interface OutcomeWrite {
  orderId: string;
  /** The order's row of the statement (its change's values, then its journalValues), id first. */
  values: unknown[];
  cover: InboxCover | undefined;
}

/** The order's new version and the inbox rows marked applied; null when the version had moved. */
type OutcomeWritten = { version: number; covered: string[] } | null;

/**
 * Applies what a transaction lookup said to one order, exactly once. The change, its timeline
 * event and its merchant event are one statement guarded by the order's version: a caller that
 * read the row just before the lookup (a notification, a poll) applies it in one round trip,
 * and anything that changed the row meanwhile sends it down the locked path, which re-reads it
 * under the row lock and decides again. Duplicated, concurrent and out-of-order lookups cannot
 * move an order twice or backwards.
 */
@Injectable()
export class OrderOutcomeService {
  private readonly logger = new Logger(OrderOutcomeService.name);
  /** Outcomes applied at once (each lookup of a burst of notifications) share one statement. */
  private readonly writes: StatementBatch<OutcomeWrite, OutcomeWritten>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
    private readonly journal: OrderJournal,
    private readonly accounts: GatewayAccounts,
  ) {
    this.writes = new StatementBatch((batch) => this.writeOutcomes(batch), {
      maxBatch: 100,
      maxParallel: 1,
      gatherMs: UNHURRIED_GATHER_MS,
      key: (write) => write.orderId,
      observe: (items) =>
        serviceMetrics.sharedStatementItems.observe({ statement: 'outcome_write' }, items),
    });
  }

  /**
   * `seen`: the order as read before the lookup started, if the caller has it; `cover`: the
   * inbox rows the lookup answers, marked applied with the outcome when it can be.
   */
  apply(
    orderId: string,
    lookup: TransactionLookup,
    source: EventSource,
    seen?: OrderEntity,
    cover?: InboxCover,
  ): Promise<OutcomeResult> {
    return inSpan('apply outcome', async () => {
      if (seen?.id === orderId && !namesAnotherAttempt(seen, lookup)) {
        const plan = planOutcome(copyOf(seen), lookup);
        // A reversal settles the refund and a flag is rare: both take the locked path.
        const simple =
          plan.kind === 'touch' || (plan.kind === 'transition' && plan.to !== 'reversed');
        if (simple && (await this.write(null, plan, seen.version, source, null, cover))) {
          return resultOf(plan);
        }
      }
      let setAside: { trackingId: string; account: string } | null = null;
      const result = await this.dataSource.transaction(async (manager): Promise<OutcomeResult> => {
        const order = await this.orders.lockById(orderId, manager);
        if (!order) return { kind: 'order_missing' };
        if (lookup.kind !== 'not_found' && namesAnotherAttempt(order, lookup)) {
          const earlier = await this.orders.findEarlierAttemptOf(order.id, lookup.record, manager);
          if (earlier) {
            const applied = await this.applyToEarlierAttempt(
              manager,
              order,
              earlier,
              lookup.record,
              source,
            );
            setAside = applied.setAside
              ? { trackingId: applied.setAside, account: order.gatewayAccount }
              : null;
            return applied.result;
          }
        }
        return this.applyLocked(manager, order, lookup, source);
      });
      if (setAside) void this.cancelSetAside(orderId, setAside);
      return result;
    });
  }

  /**
   * The locked path's decision and write, for an order the caller holds under its row lock in
   * its own transaction (so what the caller writes beside it commits or rolls back with the
   * outcome). The lookup is of the order's current attempt.
   */
  async applyLocked(
    manager: EntityManager,
    order: OrderEntity,
    lookup: TransactionLookup,
    source: EventSource,
  ): Promise<OutcomeResult> {
    const plan = planOutcome(order, lookup);
    if (plan.kind === 'flag') {
      await this.journal.flagForReview(manager, order, plan.reason, source, plan.record.raw);
      return resultOf(plan);
    }
    const refund =
      plan.kind === 'transition' && plan.to === 'reversed'
        ? await this.settleRefund(manager, order, source)
        : null;
    if (!(await this.write(manager, plan, order.version, source, refund))) {
      throw new Error(`order ${order.id} changed under its row lock`);
    }
    return resultOf(plan);
  }

  /**
   * A lookup of an earlier attempt of the order (its late notification, a lookup begun before the
   * customer tried again). It never changes the order, except a completion, which always counts:
   * it pays an unpaid order (the paying attempt becomes the order's attempt again, the current
   * one is set aside and cancelled at the gateway), and on an order already paid it is a double
   * payment, flagged for an admin to refund.
   */
  private async applyToEarlierAttempt(
    manager: EntityManager,
    order: OrderEntity,
    attempt: PaymentAttemptEntity,
    record: TransactionRecord,
    source: EventSource,
  ): Promise<{ result: OutcomeResult; setAside: string | null }> {
    const attempts = manager.getRepository(PaymentAttemptEntity);
    const unchanged = { result: { kind: 'unchanged', order } as OutcomeResult, setAside: null };
    const flag = async (reason: string, doublePaymentAttempt?: number) => {
      await this.journal.flagForReview(manager, order, reason, source, record.raw);
      const result: OutcomeResult = { kind: 'flagged', order, reason, doublePaymentAttempt };
      return { result, setAside: null };
    };
    switch (record.outcome) {
      case 'pending':
        return unchanged;
      case 'failed':
        // A cancelled attempt reads as failed at the gateway: it stays "cancelled" here.
        if (attempt.status === 'pending') {
          await attempts.update(attempt.id, {
            status: 'failed',
            failureReason: cutText(
              record.paymentStatusCode ?? record.description,
              FAILURE_REASON_MAX_LENGTH,
            ),
          });
        }
        return unchanged;
      case 'reversed':
        if (attempt.status === 'completed')
          await attempts.update(attempt.id, { status: 'reversed' });
        return unchanged;
      case 'completed':
        break;
    }
    if (attempt.status === 'completed' || attempt.status === 'reversed') return unchanged;
    const wrong = amountMismatch(order, record);
    if (wrong) return flag(`attempt ${attempt.number} ${wrong}`);
    await attempts.update(attempt.id, {
      status: 'completed',
      confirmationCode: record.confirmationCode,
      paidAmount: record.amount.toDecimalString(),
      paidAt: record.createdAt,
    });
    const paid = `${record.amount.toDecimalString()} ${record.currency}, confirmation ${record.confirmationCode ?? 'none'}`;
    if (order.status === 'completed') {
      return flag(
        `double payment: attempt ${attempt.number} (${attempt.gatewayReference}) was paid too (${paid}) after attempt ${order.attemptNumber} paid the order; refund one of them`,
        attempt.number,
      );
    }
    if (order.status !== 'pending' && order.status !== 'failed') {
      return flag(
        `attempt ${attempt.number} (${attempt.gatewayReference}) was paid (${paid}) on an order we hold as ${order.status}`,
      );
    }
    const setAside = await this.payByEarlierAttempt(manager, order, attempt);
    const plan = planOutcome(order, { kind: 'found', record });
    if (
      plan.kind !== 'transition' ||
      !(await this.write(manager, plan, order.version, source, null))
    ) {
      throw new Error(`order ${order.id}: attempt ${attempt.number}'s completion did not apply`);
    }
    return { result: resultOf(plan), setAside };
  }

  /**
   * The paying attempt becomes the order's attempt again (its ids are the ones refunds and later
   * lookups use); the current attempt takes its place among the earlier ones. Answers the set-aside
   * attempt's tracking id when it may still be paid at the gateway.
   */
  private async payByEarlierAttempt(
    manager: EntityManager,
    order: OrderEntity,
    paying: PaymentAttemptEntity,
  ): Promise<string | null> {
    const attempts = manager.getRepository(PaymentAttemptEntity);
    const stillOpen = order.status === 'pending' ? order.orderTrackingId : null;
    await attempts.delete({ id: paying.id });
    await this.orders.setAsideCurrentAttempt(
      order,
      order.status === 'failed' ? 'failed' : 'pending',
      manager,
    );
    Object.assign(order, {
      attemptNumber: paying.number,
      gatewayReference:
        paying.gatewayReference === order.merchantReference ? null : paying.gatewayReference,
      attemptStartedAt: paying.number === 1 ? null : paying.startedAt,
      kind: paying.kind,
      orderTrackingId: paying.orderTrackingId,
      pushMerchantReference: paying.pushMerchantReference,
      // The set-aside attempt's page and prompt details are not the paying one's.
      redirectUrl: null,
      businessNumber: null,
      pushAccountNumber: null,
      msisdn: null,
      network: null,
    } satisfies Partial<OrderEntity>);
    await manager.getRepository(OrderEntity).save(order);
    return stillOpen;
  }

  /** After the commit: the set-aside attempt must not take a second payment. */
  async cancelSetAside(
    orderId: string,
    { trackingId: orderTrackingId, account }: { trackingId: string; account: string },
  ): Promise<void> {
    try {
      const ack = await this.accounts.client(account).cancelOrder(OrderTrackingId(orderTrackingId));
      if (ack.accepted) {
        await this.dataSource.query(
          `UPDATE payment_attempts SET status = 'cancelled'
            WHERE order_tracking_id = $1 AND status = 'pending'`,
          [orderTrackingId],
        );
        return;
      }
      if (!ack.accepted) {
        this.logger.warn(
          { orderId, orderTrackingId, message: ack.message },
          'set-aside attempt not cancelled',
        );
      }
    } catch (error) {
      // If it is paid after all, its notification is a double payment and is flagged.
      this.logger.warn(
        { orderId, orderTrackingId, err: (error as Error).message },
        'set-aside attempt not cancelled',
      );
    }
  }

  /**
   * One statement: the order's outcome columns if its version is still `version`, with the
   * transition's timeline event and merchant event. False when the version had moved on.
   * Outside a transaction it joins the shared, prepared statement (it is the hot path of every
   * notification and poll), which also marks the inbox rows of `cover`.
   */
  private async write(
    manager: EntityManager | null,
    plan: Exclude<Plan, { kind: 'flag' }>,
    version: number,
    source: EventSource,
    refund: RefundEntity | null,
    cover?: InboxCover,
  ): Promise<boolean> {
    const { order } = plan;
    order.updatedAt = new Date();
    const transition = plan.kind === 'transition' ? plan : null;
    const announcedType = transition ? (ANNOUNCED[transition.to] ?? null) : null;
    const change = [
      order.id,
      version,
      order.status,
      order.paymentMethod,
      order.paymentAccount,
      order.confirmationCode,
      order.paidAmount,
      order.paidCurrency,
      order.paidAt,
      order.failureReason,
      order.failedAt,
      order.reversedAt,
      order.nextPollAt,
      order.lastCheckedAt,
      order.orderTrackingId,
      order.submissionStatus,
      order.updatedAt,
    ];
    const entry: JournalEntry | null = transition && {
      type: 'status_changed',
      source,
      attempt: order.attemptNumber,
      fromStatus: transition.from,
      toStatus: transition.to,
      gatewayRecord: transition.record.raw,
      details: transition.record.paymentStatusCode
        ? { payment_status_code: transition.record.paymentStatusCode }
        : {},
    };
    const announced = announcedType && announcement(announcedType, order, refund);
    if (manager) {
      const rows = (await manager.query(WRITE_OUTCOME_LOCKED, [
        ...change,
        ...journalParams(entry, announced),
      ])) as { version: number }[];
      if (rows.length === 0) return false;
      order.version = rows[0].version;
      return true;
    }
    const values = [...change, ...journalValues(entry, announced)];
    const written = await this.writes.submit({ orderId: order.id, values, cover });
    if (!written) return false;
    order.version = written.version;
    for (const id of written.covered) cover?.covered.add(id);
    return true;
  }

  /** WRITE_OUTCOMES for a batch: each write's values as a column, its cover flattened. */
  private async writeOutcomes(batch: OutcomeWrite[]): Promise<OutcomeWritten[]> {
    // In one order of ids, so that two workers' batches lock their orders alike (no deadlock).
    const sorted = [...batch].sort((a, b) => (a.orderId < b.orderId ? -1 : 1));
    // The order's and the journal's values, then the cover's two; a lookup nobody waits on
    // (a poll) marks no notifications.
    const records = OUTCOMES_BATCH.records(
      sorted.map(({ values, cover }) => {
        const waited = cover !== undefined && cover.notificationIds.size > 0;
        return [
          ...values,
          waited ? cover.orderTrackingId : null,
          waited ? cover.receivedUpTo : null,
        ];
      }),
    );
    const joined = sorted.flatMap(({ orderId, cover }) =>
      [...(cover?.notificationIds ?? [])].map((id) => ({ id, order_id: orderId })),
    );
    const rows = await runPrepared<{ id: string; version: number; covered: string[] }>(
      this.dataSource,
      WRITE_OUTCOMES,
      [records, JSON.stringify(joined)],
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    return batch.map(({ orderId }) => {
      const row = byId.get(orderId);
      return row ? { version: row.version, covered: row.covered } : null;
    });
  }

  /** A reversal reported by the gateway is the only sign that a requested refund moved money. */
  private async settleRefund(
    manager: EntityManager,
    order: OrderEntity,
    source: EventSource,
  ): Promise<RefundEntity | null> {
    const refund = await this.orders.refundFor(order.id, manager);
    if (!refund || !isRefundOpen(refund.status)) return refund;
    refund.status = 'reversed';
    refund.reversedAt = order.reversedAt ?? new Date();
    await manager.getRepository(RefundEntity).save(refund);
    await this.journal.record(
      manager,
      order,
      {
        type: 'refund_reversed',
        source,
        details: { refund_id: refund.id, amount: refund.amount, currency: refund.currency },
      },
      announcement('refund.reversed', order, refund),
    );
    return refund;
  }
}
