import type { UnmatchedPaymentEntity, UnmatchedPaymentStatus } from '@app/persistence';

/** A payment without an order as the admin API and the console show it. */
export interface UnmatchedPaymentView {
  id: string;
  gateway_account: string;
  order_tracking_id: string;
  amount: string;
  currency: string;
  /** The reference the gateway holds it under (not one of ours). */
  merchant_reference: string | null;
  payment_method: string | null;
  payment_account: string | null;
  confirmation_code: string | null;
  paid_at: string | null;
  notification_id: string | null;
  status: UnmatchedPaymentStatus;
  /** The order it paid (matched) or was adopted as (refund_requested): its merchant reference. */
  order_reference: string | null;
  settled_by: string | null;
  settled_at: string | null;
  created_at: string;
}

export function toUnmatchedPaymentView(
  payment: UnmatchedPaymentEntity,
  orderReference: string | null = null,
): UnmatchedPaymentView {
  return {
    id: payment.id,
    gateway_account: payment.gatewayAccount,
    order_tracking_id: payment.orderTrackingId,
    amount: payment.amount,
    currency: payment.currency,
    merchant_reference: payment.merchantReference,
    payment_method: payment.paymentMethod,
    payment_account: payment.paymentAccount,
    confirmation_code: payment.confirmationCode,
    paid_at: payment.paidAt?.toISOString() ?? null,
    notification_id: payment.notificationId,
    status: payment.status,
    order_reference: orderReference,
    settled_by: payment.settledBy,
    settled_at: payment.settledAt?.toISOString() ?? null,
    created_at: payment.createdAt.toISOString(),
  };
}
