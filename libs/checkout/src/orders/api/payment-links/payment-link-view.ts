import type { PaymentLinkEntity, PaymentLinkField } from '@app/persistence';
import { paymentLinkStatus, PaymentLinkStatus } from './payment-link-status';

/** A payment link as the API answers it. */
export interface PaymentLinkView {
  id: string;
  url: string;
  status: PaymentLinkStatus;
  amount: string | null;
  min_amount: string | null;
  max_amount: string | null;
  currency: string;
  account: string;
  description: string;
  reference_prefix: string;
  expires_at: string | null;
  max_payments: number | null;
  after_payment: { redirect_url: string | null; message: string | null };
  collect: PaymentLinkField[];
  payments_started: number;
  payments_completed: number;
  amount_collected: string;
  created_by: string;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

/** One payment made through a link: the order, as far as the link's owner needs it. */
export interface PaymentLinkPaymentView {
  reference: string;
  status: string;
  amount: string;
  currency: string;
  kind: string;
  customer_email: string | null;
  paid_at: string | null;
  created_at: string;
}

/** The page's address: where customers pay. */
export const paymentLinkUrl = (publicBaseUrl: string, id: string): string =>
  `${publicBaseUrl}/pay/${id}`;

export function toPaymentLinkView(
  link: PaymentLinkEntity,
  publicBaseUrl: string,
  now = new Date(),
): PaymentLinkView {
  return {
    id: link.id,
    url: paymentLinkUrl(publicBaseUrl, link.id),
    status: paymentLinkStatus(link, now),
    amount: link.amount,
    min_amount: link.minAmount,
    max_amount: link.maxAmount,
    currency: link.currency,
    account: link.gatewayAccount,
    description: link.description,
    reference_prefix: link.referencePrefix,
    expires_at: link.expiresAt?.toISOString() ?? null,
    max_payments: link.maxPayments,
    after_payment: { redirect_url: link.afterPaymentUrl, message: link.afterPaymentMessage },
    collect: link.collect,
    payments_started: link.paymentsStarted,
    payments_completed: link.paymentsCompleted,
    amount_collected: link.amountCollected,
    created_by: link.createdBy,
    created_at: link.createdAt.toISOString(),
    updated_at: link.updatedAt.toISOString(),
    completed_at: link.completedAt?.toISOString() ?? null,
  };
}
