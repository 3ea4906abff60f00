import { Injectable } from '@nestjs/common';
import { inSpan } from '@app/common';
import { DataSource, EntityManager } from 'typeorm';
import {
  decideOutcome,
  isRefundOpen,
  isTerminal,
  MerchantEventType,
  Money,
  OrderStatus,
} from '@app/domain';
import { TransactionLookup, TransactionRecord } from '@app/gateway-client';
import {
  EventSource,
  OrderEntity,
  OrderRepository,
  PreparedStatement,
  RefundEntity,
  runPrepared,
} from '@app/persistence';
import { announcement, journalledStatement, journalParams, OrderJournal } from './order-journal';

export type OutcomeResult =
  | { kind: 'transitioned'; order: OrderEntity; from: OrderStatus; to: OrderStatus }
  | { kind: 'unchanged'; order: OrderEntity }
  | { kind: 'flagged'; order: OrderEntity; reason: string }
  | { kind: 'order_missing' };

const ANNOUNCED: Partial<Record<OrderStatus, MerchantEventType>> = {
  completed: 'order.completed',
  failed: 'order.failed',
  cancelled: 'order.cancelled',
  reversed: 'order.reversed',
  expired: 'order.expired',
};

/**
 * Writes what a lookup changed on an order still at the version it was read at, with the
 * journal's timeline event (a transition) and merchant event (one it announces). These are every
 * column a lookup's outcome may change (a flag or a refund's reversal aside).
 */
const WRITE_OUTCOME: PreparedStatement = {
  name: 'order-outcome-write',
  text: journalledStatement(
    `UPDATE orders
        SET status = $3, payment_method = $4, payment_account = $5, confirmation_code = $6,
            paid_amount = $7, paid_currency = $8, paid_at = $9, failure_reason = $10,
            failed_at = $11, reversed_at = $12, next_poll_at = $13, last_checked_at = $14,
            order_tracking_id = $15, submission_status = $16, updated_at = $17,
            version = version + 1
      WHERE id = $1 AND version = $2
      RETURNING id, version`,
    17,
  ),
};

/** What a lookup means for an order as read: computed first, then written in one statement. */
type Plan =
  | { kind: 'touch'; order: OrderEntity }
  | {
      kind: 'transition';
      order: OrderEntity;
      from: OrderStatus;
      to: OrderStatus;
      record: TransactionRecord;
    }
  | { kind: 'flag'; order: OrderEntity; reason: string; record: TransactionRecord };

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
  constructor(
    private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
    private readonly journal: OrderJournal,
  ) {}

  /** `seen`: the order as read before the lookup started, if the caller has it. */
  apply(
    orderId: string,
    lookup: TransactionLookup,
    source: EventSource,
    seen?: OrderEntity,
  ): Promise<OutcomeResult> {
    return inSpan('apply outcome', () => this.applyOutcome(orderId, lookup, source, seen));
  }

  private async applyOutcome(
    orderId: string,
    lookup: TransactionLookup,
    source: EventSource,
    seen?: OrderEntity,
  ): Promise<OutcomeResult> {
    if (seen?.id === orderId) {
      const plan = planOutcome(copyOf(seen), lookup);
      // A reversal settles the refund and a flag is rare: both take the locked path.
      const simple =
        plan.kind === 'touch' || (plan.kind === 'transition' && plan.to !== 'reversed');
      if (simple && (await this.write(null, plan, seen.version, source, null))) {
        return resultOf(plan);
      }
    }
    return this.dataSource.transaction(async (manager) => {
      const order = await this.orders.lockById(orderId, manager);
      if (!order) return { kind: 'order_missing' };
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
        throw new Error(`order ${orderId} changed under its row lock`);
      }
      return resultOf(plan);
    });
  }

  /**
   * One statement: the order's outcome columns if its version is still `version`, with the
   * transition's timeline event and merchant event. False when the version had moved on.
   * Outside a transaction it runs prepared (it is the hot path of every notification and poll).
   */
  private async write(
    manager: EntityManager | null,
    plan: Exclude<Plan, { kind: 'flag' }>,
    version: number,
    source: EventSource,
    refund: RefundEntity | null,
  ): Promise<boolean> {
    const { order } = plan;
    order.updatedAt = new Date();
    const transition = plan.kind === 'transition' ? plan : null;
    const announced = transition ? (ANNOUNCED[transition.to] ?? null) : null;
    const values = [
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
      ...journalParams(
        transition && {
          type: 'status_changed',
          source,
          fromStatus: transition.from,
          toStatus: transition.to,
          gatewayRecord: transition.record.raw,
          details: transition.record.paymentStatusCode
            ? { payment_status_code: transition.record.paymentStatusCode }
            : {},
        },
        announced && announcement(announced, order, refund),
      ),
    ];
    const rows = manager
      ? ((await manager.query(WRITE_OUTCOME.text, values)) as { version: number }[])
      : await runPrepared<{ version: number }>(this.dataSource, WRITE_OUTCOME, values);
    if (rows.length === 0) return false;
    order.version = rows[0].version;
    return true;
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

/** The order after the lookup (changed in place) and what to write; no I/O. */
function planOutcome(order: OrderEntity, lookup: TransactionLookup): Plan {
  order.lastCheckedAt = new Date();
  if (lookup.kind === 'not_found') return { kind: 'touch', order };
  const record = lookup.record;
  // A row whose creation answer never reached us learns its tracking id from the lookup.
  if (!order.orderTrackingId && record.orderTrackingId) {
    order.orderTrackingId = record.orderTrackingId;
    order.submissionStatus = 'submitted';
  }
  const mismatch = integrityMismatch(order, record);
  if (mismatch && record.outcome !== 'pending') {
    return { kind: 'flag', order, reason: mismatch, record };
  }
  const decision = decideOutcome(order.status, record.outcome);
  if (decision.kind === 'review') return { kind: 'flag', order, reason: decision.reason, record };
  if (decision.kind === 'unchanged') return { kind: 'touch', order };

  const from = order.status;
  const to = decision.to;
  const now = new Date();
  order.status = to;
  order.paymentMethod = record.paymentMethod ?? order.paymentMethod;
  order.paymentAccount = record.paymentAccount ?? order.paymentAccount;
  switch (to) {
    case 'completed':
      order.confirmationCode = record.confirmationCode;
      order.paidAmount = record.amount.toDecimalString();
      order.paidCurrency = record.currency;
      order.paidAt = record.createdAt;
      order.failureReason = null;
      order.nextPollAt = null;
      break;
    case 'failed':
      order.failedAt = now;
      // The gateway's description has no stated length; the column keeps its first 100 characters.
      order.failureReason =
        (record.paymentStatusCode ?? record.description ?? null)?.slice(0, 100) ?? null;
      break;
    case 'reversed':
      order.reversedAt = now;
      break;
    default:
      break;
  }
  if (isTerminal(to)) order.nextPollAt = null;
  return { kind: 'transition', order, from, to, record };
}

function resultOf(plan: Plan): OutcomeResult {
  switch (plan.kind) {
    case 'touch':
      return { kind: 'unchanged', order: plan.order };
    case 'transition':
      return { kind: 'transitioned', order: plan.order, from: plan.from, to: plan.to };
    case 'flag':
      return { kind: 'flagged', order: plan.order, reason: plan.reason };
  }
}

/** The caller's entity stays as it was read: the plan changes a copy. */
function copyOf(order: OrderEntity): OrderEntity {
  return Object.assign(Object.create(Object.getPrototypeOf(order) as object) as OrderEntity, order);
}

/**
 * A lookup that pays another amount, in another currency, or for another reference must never
 * complete this order: the reason names both sides for the reviewer.
 */
export function integrityMismatch(order: OrderEntity, record: TransactionRecord): string | null {
  const problems: string[] = [];
  if (record.merchantReference && record.merchantReference !== order.merchantReference) {
    problems.push(
      `merchant reference: ours ${order.merchantReference}, gateway ${record.merchantReference}`,
    );
  }
  if (record.currency.toUpperCase() !== order.currency) {
    problems.push(`currency: ours ${order.currency}, gateway ${record.currency}`);
  } else if (!record.amount.equals(Money.of(order.amount, order.currency))) {
    problems.push(`amount: ours ${order.amount}, gateway ${record.amount.toDecimalString()}`);
  }
  return problems.length > 0 ? `lookup does not match the order (${problems.join('; ')})` : null;
}
