import { currentAttemptStatus, cutText } from '@app/domain';
import {
  CheckoutKind,
  OrderEntity,
  OrderEventEntity,
  PaymentAttemptEntity,
  RefundEntity,
} from '@app/persistence';
import { INTEGER } from '../http/documented-schemas';

/** An order's answer holds at most its latest TIMELINE_LIMIT timeline entries. */
export const TIMELINE_LIMIT = 500;
/** Payment attempts one order may have (a new one past it is refused). */
export const ATTEMPTS_PER_ORDER_LIMIT = 20;
/** A payment attempt's number as documented: 1, then one more each time, at most the limit. */
export const ATTEMPT_NUMBER = {
  ...INTEGER,
  minimum: 1,
  maximum: ATTEMPTS_PER_ORDER_LIMIT,
  example: 1,
} as const;
/** Every kind of checkout, as the documents list them (total: a new kind must be named here). */
export const CHECKOUT_KINDS: CheckoutKind[] = Object.keys({
  hosted: true,
  mobile_money: true,
} satisfies Record<CheckoutKind, true>) as CheckoutKind[];

/**
 * Any name an order is found by (OrderRepository.findByAnyReference): its merchant_reference or
 * gateway_reference (50), order_tracking_id (64) or push_merchant_reference (100), of any attempt.
 * Nothing longer names an order.
 */
export const ORDER_NAME = { type: String, minLength: 1, maxLength: 100, example: 'ORDER-2041' };
/** orders / payment_attempts .failure_reason: varchar(100); its writers cut a longer one. */
export const FAILURE_REASON_MAX_LENGTH = 100;
/** The longest review reason an order keeps (flagForReview cuts a longer one). */
export const REVIEW_REASON_MAX_LENGTH = 500;
/**
 * The longest message a refund's record keeps (refunds.gateway_message and payment_attempts.
 * refund_message are text): the gateway's answer or an error's, cut to it when recorded.
 */
export const REFUND_MESSAGE_MAX_LENGTH = 500;
/** The bound of a refund's reason (refunds.reason is text; api/refund.dto.ts checks it). */
export const REFUND_REASON_MAX_LENGTH = 500;

/** The order as the shop sees it, in API answers and in merchant webhooks alike. */
export interface OrderView {
  reference: string;
  /** The payment attempt the order's payment fields describe (1 unless the customer tried again). */
  attempt: number;
  order_tracking_id: string | null;
  push_merchant_reference: string | null;
  kind: string;
  status: string;
  amount: string;
  currency: string;
  /** The merchant account the payment is taken on (`default` for a single-account deployment). */
  account: string;
  /** The payment link it was paid through (its id), if any. */
  payment_link: string | null;
  description: string;
  confirmation_code: string | null;
  payment_method: string | null;
  payment_account: string | null;
  paid_amount: string | null;
  paid_currency: string | null;
  paid_at: string | null;
  failure_reason: string | null;
  needs_review: boolean;
  review_reason: string | null;
  redirect_url: string | null;
  business_number: string | null;
  account_number: string | null;
  created_at: string;
  updated_at: string;
  refund: RefundView | null;
}

export interface RefundView {
  id: string;
  status: string;
  amount: string;
  currency: string;
  partial: boolean;
  reason: string;
  requested_by: string;
  gateway_status: string | null;
  gateway_message: string | null;
  created_at: string;
  accepted_at: string | null;
  reversed_at: string | null;
  rejected_at: string | null;
}

export interface TimelineEntry {
  type: string;
  from_status: string | null;
  to_status: string | null;
  source: string;
  actor: string | null;
  at: string;
  details: Record<string, unknown>;
  gateway_record: unknown;
}

/** The order's columns its answer is made of (a status read selects these and no others). */
export type OrderViewSource = Pick<
  OrderEntity,
  | 'merchantReference'
  | 'attemptNumber'
  | 'orderTrackingId'
  | 'pushMerchantReference'
  | 'gatewayReference'
  | 'kind'
  | 'status'
  | 'amount'
  | 'currency'
  | 'gatewayAccount'
  | 'paymentLinkId'
  | 'description'
  | 'confirmationCode'
  | 'paymentMethod'
  | 'paymentAccount'
  | 'paidAmount'
  | 'paidCurrency'
  | 'paidAt'
  | 'failureReason'
  | 'needsReview'
  | 'reviewReason'
  | 'redirectUrl'
  | 'businessNumber'
  | 'pushAccountNumber'
  | 'attemptStartedAt'
  | 'createdAt'
  | 'updatedAt'
>;

/** A refund's columns its view is made of. */
export type RefundViewSource = Pick<
  RefundEntity,
  | 'id'
  | 'status'
  | 'amount'
  | 'currency'
  | 'isPartial'
  | 'reason'
  | 'requestedBy'
  | 'gatewayStatus'
  | 'gatewayMessage'
  | 'createdAt'
  | 'acceptedAt'
  | 'reversedAt'
  | 'rejectedAt'
>;

/** An earlier attempt's columns its view is made of. */
export type AttemptViewSource = Pick<
  PaymentAttemptEntity,
  | 'number'
  | 'kind'
  | 'gatewayReference'
  | 'orderTrackingId'
  | 'pushMerchantReference'
  | 'status'
  | 'failureReason'
  | 'confirmationCode'
  | 'startedAt'
  | 'replacedAt'
  | 'refundStatus'
>;

/** A timeline event's columns its entry is made of. */
export type TimelineEntrySource = Pick<
  OrderEventEntity,
  | 'type'
  | 'fromStatus'
  | 'toStatus'
  | 'source'
  | 'actor'
  | 'createdAt'
  | 'details'
  | 'gatewayRecord'
>;

export const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

/**
 * Card numbers arrive masked already (holding * or x); anything else of six characters or more,
 * a phone number, shows only its last three. The payment export applies the same rule in SQL
 * (finance/api/money-movements.ts `masked`); a test holds the two together.
 */
export function maskAccount(account: string | null): string | null {
  if (!account) return null;
  if (/[*xX]/.test(account) || account.length < 6) return account;
  return `${'*'.repeat(account.length - 3)}${account.slice(-3)}`;
}

export function toRefundView(refund: RefundViewSource): RefundView {
  return {
    id: refund.id,
    status: refund.status,
    amount: refund.amount,
    currency: refund.currency,
    partial: refund.isPartial,
    reason: refund.reason,
    requested_by: refund.requestedBy,
    gateway_status: refund.gatewayStatus,
    gateway_message: cutText(refund.gatewayMessage, REFUND_MESSAGE_MAX_LENGTH),
    created_at: refund.createdAt.toISOString(),
    accepted_at: iso(refund.acceptedAt),
    reversed_at: iso(refund.reversedAt),
    rejected_at: iso(refund.rejectedAt),
  };
}

export function toOrderView(
  order: OrderViewSource,
  refund: RefundViewSource | null = null,
): OrderView {
  return {
    reference: order.merchantReference,
    attempt: order.attemptNumber,
    order_tracking_id: order.orderTrackingId,
    push_merchant_reference: order.pushMerchantReference,
    kind: order.kind,
    status: order.status,
    amount: order.amount,
    currency: order.currency,
    account: order.gatewayAccount,
    payment_link: order.paymentLinkId ?? null,
    description: order.description,
    confirmation_code: order.confirmationCode,
    payment_method: order.paymentMethod,
    payment_account: maskAccount(order.paymentAccount),
    paid_amount: order.paidAmount,
    paid_currency: order.paidCurrency,
    paid_at: iso(order.paidAt),
    failure_reason: order.failureReason,
    needs_review: order.needsReview,
    review_reason: cutText(order.reviewReason, REVIEW_REASON_MAX_LENGTH),
    redirect_url: order.redirectUrl,
    business_number: order.businessNumber,
    account_number: order.pushAccountNumber,
    created_at: order.createdAt.toISOString(),
    updated_at: order.updatedAt.toISOString(),
    refund: refund ? toRefundView(refund) : null,
  };
}

/** One payment attempt of an order, earlier or current. */
export interface AttemptView {
  number: number;
  current: boolean;
  kind: string;
  gateway_reference: string;
  order_tracking_id: string | null;
  push_merchant_reference: string | null;
  status: string;
  failure_reason: string | null;
  confirmation_code: string | null;
  started_at: string;
  replaced_at: string | null;
  /** The refund of this attempt's payment when it paid the order a second time. */
  refund_status: string | null;
}

/** Every attempt of the order, in the order they were made; the current one is the order row. */
export function toAttemptViews(
  order: OrderViewSource,
  earlier: AttemptViewSource[],
): AttemptView[] {
  const views: AttemptView[] = earlier.map((attempt) => ({
    number: attempt.number,
    current: false,
    kind: attempt.kind,
    gateway_reference: attempt.gatewayReference,
    order_tracking_id: attempt.orderTrackingId,
    push_merchant_reference: attempt.pushMerchantReference,
    status: attempt.status,
    failure_reason: attempt.failureReason,
    confirmation_code: attempt.confirmationCode,
    started_at: attempt.startedAt.toISOString(),
    replaced_at: attempt.replacedAt.toISOString(),
    refund_status: attempt.refundStatus,
  }));
  views.push({
    number: order.attemptNumber,
    current: true,
    kind: order.kind,
    gateway_reference: order.gatewayReference ?? order.merchantReference,
    order_tracking_id: order.orderTrackingId,
    push_merchant_reference: order.pushMerchantReference,
    status: currentAttemptStatus(order.status, order.failureReason),
    failure_reason: order.failureReason,
    confirmation_code: order.confirmationCode,
    started_at: (order.attemptStartedAt ?? order.createdAt).toISOString(),
    replaced_at: null,
    // The order's own payment is refunded through its refund (the order's `refund`).
    refund_status: null,
  });
  return views.sort((a, b) => a.number - b.number);
}

export function toTimelineEntry(event: TimelineEntrySource): TimelineEntry {
  return {
    type: event.type,
    from_status: event.fromStatus,
    to_status: event.toStatus,
    source: event.source,
    actor: event.actor,
    at: event.createdAt.toISOString(),
    details: event.details,
    gateway_record: event.gatewayRecord ?? null,
  };
}
