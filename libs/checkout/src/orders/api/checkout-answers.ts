import { OrderEntity } from '@app/persistence';

/** What POST /v1/checkouts answers (and replays): the hosted page to send the customer to. */
export interface HostedCheckoutAnswer {
  reference: string;
  /** The payment attempt this answer starts (1 for a checkout, more for POST …/attempts). */
  attempt: number;
  order_tracking_id: string | null;
  status: string;
  redirect_url: string | null;
  amount: string;
  currency: string;
  created_at: string;
}

/** What POST /v1/checkouts/mobile-money answers: the prompt went out; manual payment details. */
export interface MobileMoneyCheckoutAnswer {
  reference: string;
  attempt: number;
  order_tracking_id: string | null;
  push_merchant_reference: string | null;
  status: string;
  business_number: string | null;
  account_number: string | null;
  amount: string;
  currency: string;
  created_at: string;
}

export type CheckoutAnswer = HostedCheckoutAnswer | MobileMoneyCheckoutAnswer;

/** What an answer is made of: these columns of the order, and no others. */
export type CheckoutAnswerSource = Pick<
  OrderEntity,
  | 'merchantReference'
  | 'attemptNumber'
  | 'orderTrackingId'
  | 'status'
  | 'kind'
  | 'redirectUrl'
  | 'pushMerchantReference'
  | 'businessNumber'
  | 'pushAccountNumber'
  | 'amount'
  | 'currency'
  | 'createdAt'
>;

/** The answer's columns as a statement returns them (each named as its entity property). */
export const CHECKOUT_ANSWER_COLUMNS = `merchant_reference AS "merchantReference",
  attempt_number AS "attemptNumber", order_tracking_id AS "orderTrackingId", status, kind,
  redirect_url AS "redirectUrl", push_merchant_reference AS "pushMerchantReference",
  business_number AS "businessNumber", push_account_number AS "pushAccountNumber", amount,
  currency, created_at AS "createdAt"`;

/** Each answer written key by key in its documented order (a spread object costs V8 more). */
export function checkoutAnswerOf(order: CheckoutAnswerSource): CheckoutAnswer {
  if (order.kind === 'mobile_money') {
    return {
      reference: order.merchantReference,
      attempt: order.attemptNumber,
      order_tracking_id: order.orderTrackingId,
      status: order.status,
      push_merchant_reference: order.pushMerchantReference,
      business_number: order.businessNumber,
      account_number: order.pushAccountNumber,
      amount: order.amount,
      currency: order.currency,
      created_at: order.createdAt.toISOString(),
    };
  }
  return {
    reference: order.merchantReference,
    attempt: order.attemptNumber,
    order_tracking_id: order.orderTrackingId,
    status: order.status,
    redirect_url: order.redirectUrl,
    amount: order.amount,
    currency: order.currency,
    created_at: order.createdAt.toISOString(),
  };
}
