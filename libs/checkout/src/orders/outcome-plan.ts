import { cutText, decideOutcome, isTerminal, Money, type OrderStatus } from '@app/domain';
import { TransactionLookup, TransactionRecord } from '@app/gateway-client';
import { OrderEntity } from '@app/persistence';
import { FAILURE_REASON_MAX_LENGTH } from './order-view';

/**
 * What a transaction lookup means for an order, decided before anything is written: the pure half
 * of OrderOutcomeService (order-outcome.service.ts), which then writes the plan in one statement.
 */

export type OutcomeResult =
  | { kind: 'transitioned'; order: OrderEntity; from: OrderStatus; to: OrderStatus }
  | { kind: 'unchanged'; order: OrderEntity }
  | {
      kind: 'flagged';
      order: OrderEntity;
      reason: string;
      /** Set when the flag is a double payment: the earlier attempt whose payment came second. */
      doublePaymentAttempt?: number;
    }
  | { kind: 'order_missing' };

/** What a lookup means for an order as read: computed first, then written in one statement. */
export type Plan =
  | { kind: 'touch'; order: OrderEntity }
  | {
      kind: 'transition';
      order: OrderEntity;
      from: OrderStatus;
      to: OrderStatus;
      record: TransactionRecord;
    }
  | { kind: 'flag'; order: OrderEntity; reason: string; record: TransactionRecord };

/** The order after the lookup (changed in place) and what to write; no I/O. */
export function planOutcome(order: OrderEntity, lookup: TransactionLookup): Plan {
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
      order.failureReason = cutText(
        record.paymentStatusCode ?? record.description,
        FAILURE_REASON_MAX_LENGTH,
      );
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

export function resultOf(plan: Plan): OutcomeResult {
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
export function copyOf(order: OrderEntity): OrderEntity {
  // Onto a new entity, whose fields its class declares: copied onto a bare object, fifty-odd
  // properties turn it into a slow dictionary-mode object for everything that reads it after.
  return Object.assign(new OrderEntity(), order);
}

/**
 * The lookup names another payment attempt of the order than the one the order row holds: by
 * tracking id when both are known, else by the id it was sent under.
 */
export function namesAnotherAttempt(order: OrderEntity, lookup: TransactionLookup): boolean {
  if (lookup.kind === 'not_found') return false;
  const { record } = lookup;
  if (record.orderTrackingId && order.orderTrackingId) {
    return record.orderTrackingId !== order.orderTrackingId;
  }
  return (
    !!record.merchantReference &&
    record.merchantReference !== (order.gatewayReference ?? order.merchantReference)
  );
}

/** Another amount or currency than the order's; null when they match. */
export function amountMismatch(order: OrderEntity, record: TransactionRecord): string | null {
  if (record.currency.toUpperCase() !== order.currency) {
    return `paid in another currency: ours ${order.currency}, gateway ${record.currency}`;
  }
  if (!record.amount.equals(Money.of(order.amount, order.currency))) {
    return `paid another amount: ours ${order.amount}, gateway ${record.amount.toDecimalString()}`;
  }
  return null;
}

/**
 * A lookup that pays another amount, in another currency, or for another reference must never
 * complete this order: the reason names both sides for the reviewer.
 */
export function integrityMismatch(order: OrderEntity, record: TransactionRecord): string | null {
  const problems: string[] = [];
  const sentAs = order.gatewayReference ?? order.merchantReference;
  if (record.merchantReference && record.merchantReference !== sentAs) {
    problems.push(`merchant reference: ours ${sentAs}, gateway ${record.merchantReference}`);
  }
  if (record.currency.toUpperCase() !== order.currency) {
    problems.push(`currency: ours ${order.currency}, gateway ${record.currency}`);
  } else if (!record.amount.equals(Money.of(order.amount, order.currency))) {
    problems.push(`amount: ours ${order.amount}, gateway ${record.amount.toDecimalString()}`);
  }
  return problems.length > 0 ? `lookup does not match the order (${problems.join('; ')})` : null;
}
