import {
  CONFIRMATION_CODE_MAX_LENGTH,
  ConfirmationCode,
  cutText,
  MerchantReference,
  Money,
  OrderTrackingId,
  PAYMENT_DETAIL_MAX_LENGTH,
  paymentOutcomeFromStatusCode,
} from '@app/domain';
import { parseEastAfricaDate } from './gateway-dates';
import { GatewayOperation } from './gateway-errors';
import { SubscriptionTransactionInfo, TransactionLookup, TransactionRecord } from './gateway-types';
import {
  gatewayErrorFromBody,
  isJsonObject,
  JsonObject,
  malformedResponse,
  readErrorObject,
} from './parse-error';

export type LookupOperation = Extract<
  GatewayOperation,
  'getTransactionStatus' | 'getTransactionByMerchantReference' | 'queryStatusByConfirmationCode'
>;

const NOT_FOUND_CODE = 'payment_details_not_found';
/** The only thing that tells an unpaid order from an unknown one: both share NOT_FOUND_CODE. */
const PENDING_MESSAGE = 'pending payment';

/** Empty strings mean "nothing" in status records; null them so callers test one thing. */
const textOrNull = (value: unknown): string | null => {
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' && value.trim() !== '' ? value : null;
};

/**
 * One lookup answer → found / pending / not_found. The outcome comes from status_code only.
 * A pending order answers HTTP 200 with body status "500", status_code 0 and the error
 * payment_details_not_found "Pending Payment": that is an unpaid order, not a failure.
 */
export function parseTransactionLookup(
  operation: LookupOperation,
  httpStatus: number,
  body: unknown,
): TransactionLookup {
  if (isJsonObject(body)) {
    const error = readErrorObject(body.error);
    if (error?.code === NOT_FOUND_CODE) {
      const pending = error.message?.trim().toLowerCase() === PENDING_MESSAGE;
      if (!pending) return { kind: 'not_found' };
      return { kind: 'pending', record: readTransactionRecord(operation, httpStatus, body) };
    }
  }
  const failure = gatewayErrorFromBody(operation, httpStatus, body);
  if (failure) throw failure;
  return { kind: 'found', record: readTransactionRecord(operation, httpStatus, body) };
}

export function readTransactionRecord(
  operation: LookupOperation,
  httpStatus: number,
  body: unknown,
): TransactionRecord {
  const malformed = (what: string) =>
    malformedResponse(operation, httpStatus, [], `transaction record ${what}`);
  if (!isJsonObject(body)) throw malformed('is not an object');
  const { order_tracking_id, merchant_reference, status_code, currency } = body;
  if (typeof order_tracking_id !== 'string' || order_tracking_id === '') {
    throw malformed('lacks order_tracking_id');
  }
  if (typeof merchant_reference !== 'string') throw malformed('lacks merchant_reference');
  if (typeof currency !== 'string' || currency === '') throw malformed('lacks currency');
  const statusCode = typeof status_code === 'string' ? Number(status_code) : status_code;
  const outcome =
    typeof statusCode === 'number' && Number.isInteger(statusCode)
      ? paymentOutcomeFromStatusCode(statusCode)
      : undefined;
  if (outcome === undefined || typeof statusCode !== 'number') {
    throw malformed(`has unknown status_code ${JSON.stringify(status_code)}`);
  }
  let amount: Money;
  let createdAt: Date;
  let subscription: SubscriptionTransactionInfo | undefined;
  try {
    amount = readAmount(body.amount, currency);
    createdAt = parseEastAfricaDate(body.created_date);
    subscription = readSubscriptionInfo(body.subscription_transaction_info, currency);
  } catch (cause) {
    throw malformed(`has an unreadable field: ${(cause as Error).message}`);
  }
  const confirmationCode = textOrNull(body.confirmation_code);
  // Counted in characters, as the column counts them (a pair of UTF-16 units is one).
  if (
    confirmationCode !== null &&
    cutText(confirmationCode, CONFIRMATION_CODE_MAX_LENGTH) !== confirmationCode
  ) {
    throw malformed(
      `has a confirmation_code longer than ${CONFIRMATION_CODE_MAX_LENGTH} characters`,
    );
  }
  return {
    orderTrackingId: OrderTrackingId(order_tracking_id),
    merchantReference: MerchantReference(merchant_reference),
    outcome,
    statusCode,
    statusDescription:
      typeof body.payment_status_description === 'string' ? body.payment_status_description : '',
    confirmationCode: confirmationCode === null ? null : ConfirmationCode(confirmationCode),
    paymentMethod: cutText(textOrNull(body.payment_method), PAYMENT_DETAIL_MAX_LENGTH),
    paymentAccount: cutText(textOrNull(body.payment_account), PAYMENT_DETAIL_MAX_LENGTH),
    amount,
    currency: amount.currency,
    createdAt,
    description: textOrNull(body.description),
    paymentStatusCode: textOrNull(body.payment_status_code),
    callbackUrl: textOrNull(body.call_back_url),
    accountNumber: textOrNull(body.account_number),
    ...(subscription ? { subscription } : {}),
    raw: body,
  };
}

/** Amounts arrive as JSON numbers; String() of the parsed number is the exact decimal, no arithmetic. */
function readAmount(value: unknown, currency: string): Money {
  if (typeof value === 'number') return Money.fromGatewayNumber(value, currency);
  if (typeof value === 'string') return Money.of(value, currency);
  throw new Error(`amount ${JSON.stringify(value)}`);
}

/** Present on recurring charges; correlation_id arrives as a number and is kept as text. */
function readSubscriptionInfo(
  value: unknown,
  currency: string,
): SubscriptionTransactionInfo | undefined {
  if (!isJsonObject(value)) return undefined;
  const info: JsonObject = value;
  return {
    accountReference: textOrNull(info.account_reference) ?? '',
    amount: readAmount(info.amount, currency),
    firstName: textOrNull(info.first_name) ?? '',
    lastName: textOrNull(info.last_name) ?? '',
    correlationId: textOrNull(info.correlation_id) ?? '',
  };
}
