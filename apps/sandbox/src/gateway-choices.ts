/**
 * Every choice the sandbox makes where the interface document says "not shown" or stays silent.
 * Kept in one place so that the README section and the behaviour cannot drift apart: each
 * constant here is listed in apps/sandbox/README.md ("Choices where the contract is silent").
 */

/** Standard error objects (section 7). */
export interface GatewayError {
  error_type: string;
  code: string;
  message: string;
}

export const ERRORS = {
  wrongCredentials: {
    error_type: 'api_error',
    code: 'invalid_consumer_key_or_secret_provided',
    message: 'Invalid Access Credentials provided',
  },
  /** Missing header (401): the object is JSON-encoded inside `message`. */
  missingBearer: {
    error_type: 'authentication_error',
    code: 'invalid_api_credentials_provided',
    message: 'Authorization token is missing',
  },
  /** Choice: invalid and expired tokens share one error (HTTP 500, status null). */
  invalidBearer: {
    error_type: 'api_error',
    code: 'invalid_api_credentials_provided',
    message: 'Invalid or expired access token',
  },
  /** Choice: the 409 of RegisterIPN, message-wrapped like the 401. */
  ipnRateLimited: {
    error_type: 'api_error',
    code: 'too_many_requests',
    message: 'Too many requests. Please try again later',
  },
  /** Choice: the "generic decline" for ids of 51 characters and more (never mentions length). */
  genericDecline: {
    error_type: 'api_error',
    code: 'unable_to_process_request',
    message: 'Unable to process request. Please try again',
  },
  invalidIpnId: {
    error_type: 'api_error',
    code: 'InvalidIpnId',
    message: 'Invalid notification id provided',
  },
  invalidPaymentMethod: {
    error_type: 'api_error',
    code: 'invalid_payment_method',
    message: 'Invalid Payment method provided',
  },
  pendingPayment: {
    error_type: 'api_error',
    code: 'payment_details_not_found',
    message: 'Pending Payment',
  },
  paymentNotFound: {
    error_type: 'api_error',
    code: 'payment_details_not_found',
    message: 'Payment details not found',
  },
} as const satisfies Record<string, GatewayError>;

/** Choice: field validation failures all use this type and code, messages pipe-delimited. */
export const VALIDATION_ERROR = {
  error_type: 'invalid_request_error',
  code: 'invalid_api_request_parameters',
} as const;

/** Token-issue missing-fields messages (section 5). */
export const TOKEN_MESSAGES = {
  keyRequired: 'Consumer Key is required',
  secretRequired: 'Consumer Secret is required',
  /** Choice: a body that does not parse contributes two empty segments before the field messages. */
  malformedJsonSegments: ['', ''],
} as const;

export const SUCCESS_MESSAGE = 'Request processed successfully';

/** IPN registration choices. */
export const IPN_MESSAGES = {
  urlRequired: 'Url is required',
  urlInvalid: 'Invalid Url provided',
  typeRequired: 'Ipn Notification Type is required',
  typeTooLong: 'Ipn Notification Type must not exceed 4 characters',
  typeInvalid: 'Invalid Ipn Notification Type provided. Allowed values are GET or POST',
} as const;

/** Choice: fields required on SubmitOrderRequest (all others optional). */
export const ORDER_REQUIRED_FIELDS = [
  'id',
  'currency',
  'amount',
  'description',
  'callback_url',
  'notification_id',
  'billing_address',
] as const;

/** Choice: fields required on push; a missing one answers HTTP 400 with modelState. */
export const PUSH_REQUIRED_FIELDS = [
  'id',
  'currency',
  'amount',
  'description',
  'notification_id',
  'billing_address',
  'msisdn',
  'payment_method',
] as const;

/** Choice: human names used in "X is required" messages and modelState entries. */
export const FIELD_LABELS: Record<string, string> = {
  id: 'Id',
  currency: 'Currency',
  amount: 'Amount',
  description: 'Description',
  callback_url: 'Callback Url',
  notification_id: 'Notification Id',
  billing_address: 'Billing Address',
  msisdn: 'Msisdn',
  payment_method: 'Payment Method',
};

/** Choice: the ids that still succeed have at most this many characters; longer ones decline. */
export const MAX_MERCHANT_REFERENCE_LENGTH = 50;

/** Choice: the currency lookup table (exact, upper case). */
export const CURRENCIES = [
  'KES',
  'UGX',
  'TZS',
  'RWF',
  'MWK',
  'ZMW',
  'ZAR',
  'USD',
  'EUR',
  'GBP',
] as const;

export const ORDER_MESSAGES = {
  invalidCurrency: 'Invalid currency provided',
  invalidAmount: 'Amount must be a number greater than zero',
  invalidCallbackUrl: 'Invalid callback url provided',
  invalidRedirectMode: 'Invalid redirect mode provided',
  accountNumberRequired: 'Account number is required for subscription payments',
  startDateFormat: 'Invalid subscription start date. Expected format dd-MM-yyyy',
  endDateFormat: 'Invalid subscription end date. Expected format dd-MM-yyyy',
  startDatePast: 'Subscription start date must be a future date',
  frequencyInvalid: 'Invalid subscription frequency provided',
  subscriptionFieldRequired: (field: string): string => `Subscription ${field} is required`,
} as const;

export const REDIRECT_MODES = ['TOP_WINDOW', 'PARENT_WINDOW'] as const;
export const SUBSCRIPTION_FREQUENCIES = ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'] as const;

/** Choice: push networks. Accepted (case-insensitive) and the named foreign rejections. */
export const PUSH_PAYMENT_METHODS: Record<string, MobileNetwork> = {
  MPESA: 'mpesa',
  MPESAKE: 'mpesa',
  AIRTEL: 'airtel',
  AIRTELKE: 'airtel',
};
export const FOREIGN_PAYMENT_METHODS = ['TIGOTZ', 'MTNUG'] as const;
export type MobileNetwork = 'mpesa' | 'airtel';

/** Choice: paybill quoted by push for manual payment. */
export const PUSH_BUSINESS_NUMBER = '220220';

/** Choice: push model-state body (HTTP 400), field paths "request.<field>". */
export const MODEL_STATE_MESSAGE = 'The request is invalid.';
export const modelStateKey = (field: string): string => `request.${field}`;
export const modelStateRequired = (field: string): string =>
  `The ${FIELD_LABELS[field] ?? field} field is required.`;
export const MODEL_STATE_UNPARSABLE = 'The request body could not be parsed.';

/** Test phone numbers for push, by last digit (documented like a provider's test cards). */
export type PushScenario = 'completed' | 'declined' | 'timeout' | 'never';
export function pushScenarioFor(msisdn: string): PushScenario {
  const last = msisdn.trim().slice(-1);
  if (last === '1') return 'declined';
  if (last === '2') return 'timeout';
  if (last === '3') return 'never';
  return 'completed';
}
export const PUSH_FAILURE_CODES = {
  declined: 'request_terminated_by_user',
  timeout: 'request_timeout',
} as const;

/** Choice: payment_method per lookup endpoint for the same payment. */
export const PAYMENT_METHOD_NAMES = {
  byTrackingId: { card: 'Visa', mpesa: 'MpesaKE', airtel: 'AirtelKE' },
  byMerchantReference: { card: 'VisaMastercard', mpesa: 'M-Pesa', airtel: 'Airtel Money' },
  byConfirmationCode: { card: 'Visa', mpesa: 'MpesaKE', airtel: 'AirtelKE' },
} as const;

/** Choice: query parameter names of the lookups (matched case-insensitively). */
export const LOOKUP_PARAMETERS = {
  byTrackingId: 'orderTrackingId',
  byMerchantReference: 'merchantReference',
  byConfirmationCode: 'confirmationCode',
} as const;

/** Choice: status descriptions in the lookup record. */
export const STATUS_DESCRIPTIONS = {
  0: 'INVALID',
  1: 'Completed',
  2: 'Failed',
  3: 'Reversed',
} as const;

/** Choice: lookup `description` on card payments (mobile money gives null). */
export const CARD_DESCRIPTIONS = {
  completed: 'Payment completed successfully',
  failed: 'Payment failed',
  reversed: 'Payment reversed',
  cancelled: 'Order cancelled',
} as const;

/** Choice: a cancelled order reads as failed with this payment_status_code. */
export const CANCELLED_STATUS_CODE = 'order_cancelled';

/** Choice: masked card shown as payment_account on hosted-page card payments. */
export const SANDBOX_CARD_ACCOUNT = '411111******1111';
/** Choice: phone shown for hosted-page mobile money when the billing address has none. */
export const SANDBOX_MOBILE_ACCOUNT = '254700000000';

export const CANCEL_MESSAGES = {
  success: 'Order successfully cancelled.',
  notFound: 'Order not found.',
  notCancellable: 'Order cannot be cancelled.',
  missingId: 'Order tracking id is required.',
} as const;

export const REFUND_MESSAGES = {
  success: 'Refund request successfully submitted.',
  fieldRequired: (field: string): string => `${field} is required`,
  notFound: 'Invalid confirmation code provided.',
  notCompleted: 'Refunds are only allowed on completed payments.',
  alreadyRequested: 'A refund request already exists for this payment.',
  invalidAmount: 'Invalid refund amount provided.',
  tooLarge: 'Refund amount exceeds the amount paid.',
  mobileMoneyPartial: 'Mobile money refunds must be for the full amount.',
} as const;

/** Choice: ASP.NET-style texts of the message-only bodies. */
export const TRANSPORT_MESSAGES = {
  notFound: (path: string): string =>
    `No HTTP resource was found that matches the request URI '${path}'.`,
  methodNotAllowed: (method: string): string =>
    `The requested resource does not support http method '${method}'.`,
  unsupportedMediaType: (type: string): string =>
    `The request entity's media type '${type}' is not supported for this resource.`,
  serverError: 'An error has occurred.',
} as const;

/** Choice: notification delivery. A receiver acknowledges with HTTP 200 (and no body status 500). */
export const NOTIFICATION_DEFAULTS = {
  copies: 2,
  delayMs: 2000,
} as const;
