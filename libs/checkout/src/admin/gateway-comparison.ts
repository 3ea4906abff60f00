import { CONFIRMATION_CODE_MAX_LENGTH, cutText, OrderStatus, PaymentOutcome } from '@app/domain';
import { TransactionLookup, TransactionRecord } from '@app/gateway-client';
import { EarlierAttemptStatus, OrderEntity, PaymentAttemptEntity } from '@app/persistence';

export interface GatewayMismatch {
  reference: string;
  order_tracking_id: string | null;
  problem: string;
  ours: {
    status: OrderStatus;
    amount: string;
    currency: string;
    paid_amount: string | null;
    confirmation_code: string | null;
  };
  gateway: {
    found: boolean;
    status_code: number | null;
    outcome: PaymentOutcome | null;
    amount: string | null;
    currency: string | null;
    confirmation_code: string | null;
    payment_method: string | null;
  };
}

/** The longest problem a mismatch states (it quotes the gateway's values, of any length). */
export const MISMATCH_PROBLEM_MAX_LENGTH = 500;
/**
 * The longest text of the gateway's side a report keeps (its currency, confirmation code and
 * payment method arrive with no stated length): the longest confirmation code we keep, so that a
 * report shows every code whole.
 */
export const GATEWAY_TEXT_MAX_LENGTH = CONFIRMATION_CODE_MAX_LENGTH;

/** What the gateway may say for each of our states without anything being wrong. */
const CONSISTENT: Record<OrderStatus, PaymentOutcome[]> = {
  pending: ['pending'],
  completed: ['completed'],
  failed: ['failed'],
  // The gateway has no cancelled or expired state: an unpaid order reads pending or failed.
  cancelled: ['pending', 'failed'],
  expired: ['pending', 'failed'],
  reversed: ['reversed'],
};

/** Compares one order with its lookup; null when they agree. Both sides go into the report. */
export function compareWithGateway(
  order: OrderEntity,
  lookup: TransactionLookup,
): GatewayMismatch | null {
  const record = lookup.kind === 'not_found' ? null : lookup.record;
  const gateway = gatewaySide(record);
  const mismatch = (problem: string): GatewayMismatch => ({
    reference: order.merchantReference,
    order_tracking_id: order.orderTrackingId,
    problem: cutText(problem, MISMATCH_PROBLEM_MAX_LENGTH),
    ours: {
      status: order.status,
      amount: order.amount,
      currency: order.currency,
      paid_amount: order.paidAmount,
      confirmation_code: order.confirmationCode,
    },
    gateway,
  });
  if (!record) return mismatch('the gateway knows no such order');
  if (!CONSISTENT[order.status].includes(record.outcome)) {
    return mismatch(`status: ours ${order.status}, gateway ${record.outcome}`);
  }
  if (order.status === 'completed' || order.status === 'reversed') {
    if (order.paidAmount !== null && order.paidAmount !== gateway.amount) {
      return mismatch(`paid amount: ours ${order.paidAmount}, gateway ${gateway.amount}`);
    }
    if (record.confirmationCode && order.confirmationCode !== record.confirmationCode) {
      return mismatch(
        `confirmation code: ours ${order.confirmationCode}, gateway ${record.confirmationCode}`,
      );
    }
  }
  return null;
}

/** What the gateway may say of an earlier attempt in each of its states. */
const ATTEMPT_CONSISTENT: Record<EarlierAttemptStatus, PaymentOutcome[]> = {
  pending: ['pending'],
  // Cancelled at the gateway: it reads failed (or still pending until the cancel lands).
  cancelled: ['pending', 'failed'],
  failed: ['failed'],
  completed: ['completed'],
  reversed: ['reversed'],
};

/**
 * Compares an earlier payment attempt with its lookup; null when they agree. A completion we do
 * not know of is a payment whose notification never came: an unpaid order to settle, or a double
 * payment to refund.
 */
export function compareAttemptWithGateway(
  order: OrderEntity,
  attempt: PaymentAttemptEntity,
  lookup: TransactionLookup,
): GatewayMismatch | null {
  const record = lookup.kind === 'not_found' ? null : lookup.record;
  const mismatch = (problem: string): GatewayMismatch => ({
    reference: order.merchantReference,
    order_tracking_id: attempt.orderTrackingId,
    problem: cutText(`attempt ${attempt.number}: ${problem}`, MISMATCH_PROBLEM_MAX_LENGTH),
    ours: {
      status: order.status,
      amount: order.amount,
      currency: order.currency,
      paid_amount: attempt.paidAmount,
      confirmation_code: attempt.confirmationCode,
    },
    gateway: gatewaySide(record),
  });
  if (!record) return mismatch('the gateway knows no such order');
  if (!ATTEMPT_CONSISTENT[attempt.status].includes(record.outcome)) {
    return mismatch(`status: ours ${attempt.status}, gateway ${record.outcome}`);
  }
  return null;
}

/** The gateway's side of a comparison, as the report shows it. */
function gatewaySide(record: TransactionRecord | null): GatewayMismatch['gateway'] {
  return {
    found: record !== null,
    status_code: record?.statusCode ?? null,
    outcome: record?.outcome ?? null,
    amount: record ? record.amount.toDecimalString() : null,
    currency: gatewayText(record?.currency),
    confirmation_code: gatewayText(record?.confirmationCode),
    payment_method: gatewayText(record?.paymentMethod),
  };
}

function gatewayText(value: string | null | undefined): string | null {
  return cutText(value, GATEWAY_TEXT_MAX_LENGTH);
}
