import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { decideOutcome, isRefundOpen, isTerminal, Money, OrderStatus } from '@app/domain';
import { TransactionLookup, TransactionRecord } from '@app/gateway-client';
import { EventSource, OrderEntity, OrderRepository, RefundEntity } from '@app/persistence';
import { MerchantEventType, OrderJournal } from './order-journal';

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
 * Applies what a transaction lookup said to one order, exactly once: in one transaction, under
 * the order's row lock, with its timeline event and merchant event. Duplicated, concurrent and
 * out-of-order lookups all land here and cannot move an order twice or backwards.
 */
@Injectable()
export class OrderOutcomeService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
    private readonly journal: OrderJournal,
  ) {}

  apply(orderId: string, lookup: TransactionLookup, source: EventSource): Promise<OutcomeResult> {
    return this.dataSource.transaction(async (manager) => {
      const order = await this.orders.lockById(orderId, manager);
      if (!order) return { kind: 'order_missing' };
      order.lastCheckedAt = new Date();
      if (lookup.kind === 'not_found') {
        await this.orders.saveLocked(order, manager);
        return { kind: 'unchanged', order };
      }
      const record = lookup.record;
      this.adoptTrackingId(order, record);

      const mismatch = integrityMismatch(order, record);
      if (mismatch && record.outcome !== 'pending') {
        return this.flag(manager, order, mismatch, record, source);
      }
      const decision = decideOutcome(order.status, record.outcome);
      if (decision.kind === 'review') {
        return this.flag(manager, order, decision.reason, record, source);
      }
      if (decision.kind === 'unchanged') {
        await this.orders.saveLocked(order, manager);
        return { kind: 'unchanged', order };
      }
      return this.transition(manager, order, decision.to, record, source);
    });
  }

  /** A row whose creation answer never reached us learns its tracking id from the lookup. */
  private adoptTrackingId(order: OrderEntity, record: TransactionRecord): void {
    if (!order.orderTrackingId && record.orderTrackingId) {
      order.orderTrackingId = record.orderTrackingId;
      order.submissionStatus = 'submitted';
    }
  }

  private async transition(
    manager: EntityManager,
    order: OrderEntity,
    to: OrderStatus,
    record: TransactionRecord,
    source: EventSource,
  ): Promise<OutcomeResult> {
    const from = order.status;
    const now = new Date();
    order.status = to;
    order.paymentMethod = record.paymentMethod ?? order.paymentMethod;
    order.paymentAccount = record.paymentAccount ?? order.paymentAccount;
    let refund: RefundEntity | null = null;
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
        order.failureReason = record.paymentStatusCode ?? record.description ?? null;
        break;
      case 'reversed':
        order.reversedAt = now;
        refund = await this.settleRefund(manager, order, now, source);
        break;
      default:
        break;
    }
    if (isTerminal(to)) order.nextPollAt = null;
    await this.orders.saveLocked(order, manager);
    await this.journal.record(manager, order, {
      type: 'status_changed',
      source,
      fromStatus: from,
      toStatus: to,
      gatewayRecord: record.raw,
      details: record.paymentStatusCode ? { payment_status_code: record.paymentStatusCode } : {},
    });
    const announced = ANNOUNCED[to];
    if (announced) await this.journal.announce(manager, order, announced, refund);
    return { kind: 'transitioned', order, from, to };
  }

  /** A reversal reported by the gateway is the only sign that a requested refund moved money. */
  private async settleRefund(
    manager: EntityManager,
    order: OrderEntity,
    now: Date,
    source: EventSource,
  ): Promise<RefundEntity | null> {
    const refund = await this.orders.refundFor(order.id, manager);
    if (!refund || !isRefundOpen(refund.status)) return refund;
    refund.status = 'reversed';
    refund.reversedAt = now;
    await manager.getRepository(RefundEntity).save(refund);
    await this.journal.record(manager, order, {
      type: 'refund_reversed',
      source,
      details: { refund_id: refund.id, amount: refund.amount, currency: refund.currency },
    });
    await this.journal.announce(manager, order, 'refund.reversed', refund);
    return refund;
  }

  private async flag(
    manager: EntityManager,
    order: OrderEntity,
    reason: string,
    record: TransactionRecord,
    source: EventSource,
  ): Promise<OutcomeResult> {
    await this.journal.flagForReview(manager, order, reason, source, record.raw);
    return { kind: 'flagged', order, reason };
  }
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
