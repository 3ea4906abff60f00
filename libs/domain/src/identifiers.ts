/** Branded strings: the compiler keeps the gateway's many identifiers from being mixed up. */
type Brand<T, B extends string> = T & { readonly __brand: B };

/** The gateway's uuid for an order; the key most operations need. */
export type OrderTrackingId = Brand<string, 'OrderTrackingId'>;
/** The shop's own order id, sent to the gateway as `id` (1–50 characters). */
export type MerchantReference = Brand<string, 'MerchantReference'>;
/** The reference push answers with; it does not echo the id we sent. */
export type PushMerchantReference = Brand<string, 'PushMerchantReference'>;
/** The gateway's receipt for a payment: 22 digits for cards, alphanumeric for mobile money. */
export type ConfirmationCode = Brand<string, 'ConfirmationCode'>;
/** The gateway's uuid for a registered notification URL, sent as notification_id. */
export type IpnId = Brand<string, 'IpnId'>;

export const OrderTrackingId = (value: string): OrderTrackingId => value as OrderTrackingId;
export const MerchantReference = (value: string): MerchantReference => value as MerchantReference;
export const PushMerchantReference = (value: string): PushMerchantReference =>
  value as PushMerchantReference;
export const ConfirmationCode = (value: string): ConfirmationCode => value as ConfirmationCode;
export const IpnId = (value: string): IpnId => value as IpnId;

/**
 * The longest confirmation code we keep. The gateway gives it "no fixed format or length" (22
 * digits for cards, a short receipt for mobile money), and a refund must send it back exactly, so
 * it is never cut: a longer one is refused as unreadable. 500 characters stay within what a
 * btree index entry holds in any encoding (about 2,700 bytes).
 */
export const CONFIRMATION_CODE_MAX_LENGTH = 500;
/**
 * The gateway's payment method name and masked account (shown, never sent back): kept cut to
 * this many characters, as their columns hold.
 */
export const PAYMENT_DETAIL_MAX_LENGTH = 64;

/** The gateway declines ids of 51–150 characters with a generic message; we stop them first. */
export const MERCHANT_REFERENCE_MAX_LENGTH = 50;
export const MERCHANT_REFERENCE_PATTERN = /^[A-Za-z0-9._:/-]{1,50}$/;

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Our rows' ids (and the gateway's tracking ids) are uuids: anything else names nothing. */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
