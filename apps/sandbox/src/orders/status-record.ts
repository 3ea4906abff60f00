import {
  CANCELLED_STATUS_CODE,
  CARD_DESCRIPTIONS,
  ERRORS,
  PAYMENT_METHOD_NAMES,
  STATUS_DESCRIPTIONS,
  SUCCESS_MESSAGE,
} from '../gateway-choices';
import { eastAfricaTime } from '../gateway-time';
import { DecimalLiteral } from '../http/exact-json';
import type { SandboxOrder } from './sandbox-order';

export type LookupEndpoint = keyof typeof PAYMENT_METHOD_NAMES;

const NULL_ERROR = { error_type: null, code: null, message: null, call_back_url: null };

/** callback_url with the tracking id and merchant reference appended, as the gateway shows it. */
export function callbackWithOrder(order: SandboxOrder): string | null {
  if (order.callbackUrl === null) return null;
  const url = new URL(order.callbackUrl);
  url.searchParams.set('OrderTrackingId', order.orderTrackingId);
  url.searchParams.set('OrderMerchantReference', order.merchantReference);
  return url.toString();
}

function statusCodeOf(order: SandboxOrder): 0 | 1 | 2 | 3 {
  switch (order.state) {
    case 'completed':
      return 1;
    case 'failed':
    case 'cancelled':
      return 2;
    case 'reversed':
      return 3;
    default:
      return 0;
  }
}

/** The status record of section 2.8 for an order, as one lookup endpoint words it. */
export function statusRecord(order: SandboxOrder, endpoint: LookupEndpoint): unknown {
  const callBackUrl = callbackWithOrder(order);
  const statusCode = statusCodeOf(order);
  const payment = order.payment;
  const pending = statusCode === 0;
  const card = payment?.instrument === 'card';
  let description: string | null = null;
  if (order.state === 'cancelled') description = CARD_DESCRIPTIONS.cancelled;
  else if (card && order.state !== 'pending') description = CARD_DESCRIPTIONS[order.state];
  const record: Record<string, unknown> = {
    payment_method: payment ? PAYMENT_METHOD_NAMES[endpoint][payment.instrument] : '',
    amount: new DecimalLiteral(order.amount),
    // A settled order's record is dated by its payment, not by the order's creation.
    created_date: eastAfricaTime(payment?.at ?? order.createdAt),
    confirmation_code: payment?.confirmationCode ?? '',
    order_tracking_id: order.orderTrackingId,
    payment_status_description: STATUS_DESCRIPTIONS[statusCode],
    description,
    message: SUCCESS_MESSAGE,
    payment_account: payment?.account ?? '',
    call_back_url: callBackUrl,
    status_code: statusCode,
    merchant_reference: order.merchantReference,
    account_number: order.accountNumber,
    payment_status_code:
      order.state === 'cancelled' ? CANCELLED_STATUS_CODE : (payment?.statusCode ?? ''),
    currency: order.currency,
  };
  if (order.recurring) {
    record.subscription_transaction_info = {
      account_reference: order.accountNumber,
      amount: new DecimalLiteral(order.amount),
      first_name: order.recurring.firstName,
      last_name: order.recurring.lastName,
      correlation_id: order.recurring.correlationId,
    };
  }
  record.error = pending ? { ...ERRORS.pendingPayment, call_back_url: callBackUrl } : NULL_ERROR;
  record.status = pending ? '500' : '200';
  return record;
}

/** The answer for an order that does not exist: only the message tells it from pending. */
export function notFoundRecord(): unknown {
  return {
    payment_method: null,
    amount: 0,
    created_date: null,
    confirmation_code: null,
    order_tracking_id: null,
    payment_status_description: null,
    description: null,
    message: null,
    payment_account: null,
    call_back_url: null,
    status_code: 0,
    merchant_reference: null,
    account_number: null,
    payment_status_code: null,
    currency: null,
    error: { ...ERRORS.paymentNotFound, call_back_url: null },
    status: '500',
  };
}
