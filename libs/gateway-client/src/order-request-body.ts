import { BillingAddress, MERCHANT_REFERENCE_MAX_LENGTH } from '@app/domain';
import {
  compareCalendarDates,
  formatGatewayDate,
  gatewayToday,
  toGatewayCalendarDate,
} from './gateway-dates';
import { GatewayOperation, GatewayRequestInvalidError } from './gateway-errors';
import { OrderRequest, PushRequest } from './gateway-types';

/**
 * The gateway enforces no maximum, but its integration guide recommends 100 characters and the
 * hosted page truncates beyond that; refusing early beats a customer seeing a cut-off text.
 */
export const DESCRIPTION_MAX_LENGTH = 100;
const MSISDN = /^\+?\d{9,15}$/;
const FREQUENCIES = ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'];

export interface RequestRules {
  productionMode: boolean;
  mobileMoneyNetworks: string[];
  now?: Date;
}

type Invalid = (field: string, reason: string) => GatewayRequestInvalidError;

/** A URL the gateway can send the customer or a notification to; HTTPS only in production. */
export function checkUrl(
  operation: GatewayOperation,
  field: string,
  value: string,
  productionMode: boolean,
): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new GatewayRequestInvalidError(operation, field, 'must be an absolute URL');
  }
  const allowed = productionMode ? ['https:'] : ['https:', 'http:'];
  if (!allowed.includes(url.protocol)) {
    throw new GatewayRequestInvalidError(
      operation,
      field,
      productionMode ? 'must use https in production' : 'must use http or https',
    );
  }
}

const BILLING_FIELDS: Record<keyof BillingAddress, string> = {
  email: 'email_address',
  phone: 'phone_number',
  firstName: 'first_name',
  middleName: 'middle_name',
  lastName: 'last_name',
  countryCode: 'country_code',
  line1: 'line_1',
  line2: 'line_2',
  city: 'city',
  state: 'state',
  postalCode: 'postal_code',
  zipCode: 'zip_code',
};

function billingAddressBody(address: BillingAddress, invalid: Invalid): Record<string, string> {
  if (address.countryCode !== undefined && !/^[A-Za-z]{2}$/.test(address.countryCode)) {
    throw invalid('billingAddress.countryCode', 'must be an ISO 3166-1 alpha-2 code');
  }
  const body: Record<string, string> = {};
  for (const [key, wire] of Object.entries(BILLING_FIELDS)) {
    const value = address[key as keyof BillingAddress];
    if (value !== undefined && value !== '') body[wire] = value;
  }
  return body;
}

/** Adds the subscription's fields to `body`, when the order has one. */
function addSubscription(
  body: Record<string, unknown>,
  request: OrderRequest,
  invalid: Invalid,
  now: Date,
): void {
  const subscription = request.subscription;
  if (!subscription) return;
  if (subscription.accountNumber.trim() === '') {
    throw invalid('subscription.accountNumber', 'must not be empty');
  }
  const start = toGatewayCalendarDate(subscription.startDate);
  const end = toGatewayCalendarDate(subscription.endDate);
  if (!start) throw invalid('subscription.startDate', 'must be a date or an ISO 8601 date');
  if (!end) throw invalid('subscription.endDate', 'must be a date or an ISO 8601 date');
  if (compareCalendarDates(start, gatewayToday(now)) <= 0) {
    throw invalid('subscription.startDate', 'must be in the future (East Africa calendar)');
  }
  // The gateway accepts an end before the start; we do not.
  if (compareCalendarDates(end, start) <= 0) {
    throw invalid('subscription.endDate', 'must be after the start date');
  }
  const frequency = subscription.frequency.toUpperCase();
  if (!FREQUENCIES.includes(frequency)) {
    throw invalid('subscription.frequency', `must be one of ${FREQUENCIES.join(', ')}`);
  }
  body.account_number = subscription.accountNumber;
  body.subscription_details = {
    start_date: formatGatewayDate(start),
    end_date: formatGatewayDate(end),
    frequency,
  };
}

function orderFields(
  operation: GatewayOperation,
  request: OrderRequest,
  rules: RequestRules,
): { amountText: string; rest: Record<string, unknown> } {
  const invalid: Invalid = (field, reason) =>
    new GatewayRequestInvalidError(operation, field, reason);
  const id = request.merchantReference;
  // 51–150 characters fail at the gateway with a generic decline that never mentions length.
  if (id.length < 1 || id.length > MERCHANT_REFERENCE_MAX_LENGTH) {
    throw invalid('merchantReference', `must be 1–${MERCHANT_REFERENCE_MAX_LENGTH} characters`);
  }
  if (!request.amount.isPositive()) throw invalid('amount', 'must be positive');
  if (request.description.trim() === '') throw invalid('description', 'must not be empty');
  if (request.description.length > DESCRIPTION_MAX_LENGTH) {
    throw invalid('description', `must be at most ${DESCRIPTION_MAX_LENGTH} characters`);
  }
  if (request.notificationId.trim() === '') throw invalid('notificationId', 'must not be empty');
  checkUrl(operation, 'callbackUrl', request.callbackUrl, rules.productionMode);
  if (request.cancellationUrl !== undefined) {
    checkUrl(operation, 'cancellationUrl', request.cancellationUrl, rules.productionMode);
  }
  // Key by key in the body's order, never spread: V8 (Node 20) writes a spread object's later
  // keys and its JSON slowly, and this runs for every checkout.
  const rest: Record<string, unknown> = {
    id,
    currency: request.amount.currency,
    description: request.description,
    callback_url: request.callbackUrl,
  };
  if (request.cancellationUrl) rest.cancellation_url = request.cancellationUrl;
  rest.notification_id = request.notificationId;
  // Mandatory even when empty.
  rest.billing_address = billingAddressBody(request.billingAddress, invalid);
  if (request.branch) rest.branch = request.branch;
  if (request.redirectMode) rest.redirect_mode = request.redirectMode;
  addSubscription(rest, request, invalid, rules.now ?? new Date());
  return { amountText: request.amount.toJSONNumberText(), rest };
}

/**
 * Writes the JSON text with the amount spliced in as an exact number literal ("1500.00"):
 * JSON.stringify would have to go through a float to print a number.
 */
function withExactAmount(amountText: string, rest: Record<string, unknown>): string {
  const others = JSON.stringify(rest);
  return `{"amount":${amountText},${others.slice(1)}`;
}

/**
 * Each request's body as last written, for which operation and under which rules: a checkout
 * checks its request before it records the order, and the gateway client sends that same request.
 */
const writtenBodies = new WeakMap<
  OrderRequest,
  { operation: GatewayOperation; rules: RequestRules; body: string }
>();

/** Rules that check a body the same way. */
function sameRules(a: RequestRules, b: RequestRules): boolean {
  return (
    a.productionMode === b.productionMode &&
    a.now?.getTime() === b.now?.getTime() &&
    (a.mobileMoneyNetworks === b.mobileMoneyNetworks ||
      a.mobileMoneyNetworks.join() === b.mobileMoneyNetworks.join())
  );
}

function remembered(
  operation: GatewayOperation,
  request: OrderRequest,
  rules: RequestRules,
  write: () => string,
): string {
  const known = writtenBodies.get(request);
  if (known && known.operation === operation && sameRules(known.rules, rules)) return known.body;
  const body = write();
  writtenBodies.set(request, { operation, rules, body });
  return body;
}

/**
 * Validates an order and writes the SubmitOrderRequest body. Throws GatewayRequestInvalidError.
 * The same request object under the same rules is checked and written once.
 */
export function buildOrderBody(request: OrderRequest, rules: RequestRules): string {
  return remembered('submitOrder', request, rules, () => {
    const { amountText, rest } = orderFields('submitOrder', request, rules);
    return withExactAmount(amountText, rest);
  });
}

/**
 * Validates a push and writes the /transactions/stk body: the order body plus msisdn and
 * payment_method. The same request object under the same rules is checked and written once.
 */
export function buildPushBody(request: PushRequest, rules: RequestRules): string {
  return remembered('pushMobileMoney', request, rules, () => writePushBody(request, rules));
}

function writePushBody(request: PushRequest, rules: RequestRules): string {
  const operation = 'pushMobileMoney';
  if (!MSISDN.test(request.msisdn)) {
    throw new GatewayRequestInvalidError(
      operation,
      'msisdn',
      'must be 9–15 digits with an optional leading +',
    );
  }
  const network = rules.mobileMoneyNetworks.find(
    (configured) => configured.toUpperCase() === request.network.toUpperCase(),
  );
  if (!network) {
    throw new GatewayRequestInvalidError(
      operation,
      'network',
      `must be one of ${rules.mobileMoneyNetworks.join(', ')}`,
    );
  }
  const { amountText, rest } = orderFields(operation, request, rules);
  rest.msisdn = request.msisdn;
  rest.payment_method = network;
  return withExactAmount(amountText, rest);
}
