import { MERCHANT_REFERENCE_MAX_LENGTH, MerchantReference } from './identifiers';
import { OrderStatus } from './order-status';

/**
 * The id a payment attempt is sent to the gateway under. The gateway answers a re-used id with
 * the earlier order, silently, so every attempt needs its own: the first is the shop's reference
 * itself; a later one is the reference, shortened to fit the gateway's 50 characters, with the
 * attempt number and a few characters of the order's own id (`ORDER-2041-a2-9f3c1b`). `salt`
 * lengthens that part if the id is already taken (a shop's own reference looking like it).
 */
export function attemptGatewayReference(
  merchantReference: string,
  attempt: number,
  orderId: string,
  salt = 0,
): MerchantReference {
  if (attempt <= 1) return MerchantReference(merchantReference);
  const hex = orderId.replace(/[^0-9a-f]/gi, '').toLowerCase();
  const suffix = `-a${attempt}-${hex.slice(0, 6 + salt * 4)}`;
  return MerchantReference(
    `${merchantReference.slice(0, MERCHANT_REFERENCE_MAX_LENGTH - suffix.length)}${suffix}`,
  );
}

/** Why a new attempt cannot start now; null when it may. */
export type AttemptRefusal =
  'order_paid' | 'order_closed' | 'attempt_still_payable' | 'order_not_submitted' | null;

/**
 * Whether the customer may try again: after a failed attempt, or over a pending mobile-money
 * prompt (which is cancelled at the gateway first: "resend the prompt"). A hosted page still open
 * is still payable; a paid order is paid; a cancelled, expired or reversed order is closed.
 */
export function attemptRefusal(
  status: OrderStatus,
  kind: 'hosted' | 'mobile_money',
  submitted: boolean,
): AttemptRefusal {
  switch (status) {
    case 'failed':
      return null;
    case 'pending':
      if (!submitted) return 'order_not_submitted';
      return kind === 'mobile_money' ? null : 'attempt_still_payable';
    case 'completed':
      return 'order_paid';
    default:
      return 'order_closed';
  }
}

/** The failure reason of an attempt the customer cancelled on the hosted page. */
export const CANCELLED_BY_CUSTOMER = 'cancelled_by_customer';

/** Where a payment attempt stands, as the attempts list shows it. */
export type AttemptStatus = OrderStatus;

/**
 * The order's current attempt as the attempts list shows it: the order's status, except that an
 * attempt the customer cancelled on the hosted page is `cancelled` (the order itself is `failed`:
 * open for another attempt, which a cancelled order is not).
 */
export function currentAttemptStatus(
  status: OrderStatus,
  failureReason: string | null,
): AttemptStatus {
  return status === 'failed' && failureReason === CANCELLED_BY_CUSTOMER ? 'cancelled' : status;
}
