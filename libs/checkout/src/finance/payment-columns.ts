/**
 * The columns of a payment export, in their default order: one definition for every place the
 * export is offered (the API, the console, the docs), so a download has the same columns
 * wherever it is taken. Each column says what one money movement holds in it.
 */
export const PAYMENT_COLUMNS = {
  occurred_at_utc: 'when the money moved, UTC (ISO 8601, milliseconds, Z)',
  occurred_at_local: "the same instant in the export's time zone, with its offset",
  type: 'payment, refund or reversal',
  status: "the payment's order status now, or the refund's status",
  merchant_reference: "the shop's order reference",
  order_tracking_id: "the gateway's id of the attempt the money moved through",
  attempt: 'the payment attempt (1 for the first)',
  confirmation_code: "the gateway's confirmation code of a payment",
  currency: 'ISO 4217',
  amount: 'a decimal string; refunds and reversals are negative',
  payment_method: 'as the gateway names it (e.g. Visa, MpesaKE)',
  payment_account: 'the card or phone that paid, masked',
  customer_email: "the customer's email",
  customer_phone: "the customer's phone, masked to its last three digits",
  refund_reason: 'why the refund was asked for',
  original_reference: 'for a refund or reversal: the confirmation code of the payment it undoes',
  description: "the order's description",
  payment_link: 'the payment link it was paid through (its id), if any',
  account: 'the merchant account (PESAPAL_ACCOUNTS) the money moved on; asked for by name',
} as const;

export type PaymentColumn = keyof typeof PAYMENT_COLUMNS;

/** Every column an export may ask for. */
export const PAYMENT_COLUMN_NAMES = Object.keys(PAYMENT_COLUMNS) as PaymentColumn[];

/** The columns of an export that does not name its own: all but `account`, which a shop with one
 * merchant account has no use for. */
export const DEFAULT_PAYMENT_COLUMNS = PAYMENT_COLUMN_NAMES.filter((name) => name !== 'account');

export const MOVEMENT_TYPES = ['payment', 'refund', 'reversal'] as const;
export type MovementType = (typeof MOVEMENT_TYPES)[number];

/** What a movement's status may be: its order's (payments), its refund's (refunds). */
export const MOVEMENT_STATUSES = ['completed', 'reversed', 'accepted'] as const;

/** The longest range one export or report covers. */
export const MAX_RANGE_DAYS = 366;
