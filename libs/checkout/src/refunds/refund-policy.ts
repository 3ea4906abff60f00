import { Money, OrderStatus } from '@app/domain';
import { CheckoutError } from '../errors/checkout-error';

/** What the policy needs to know about the paid order. */
export interface RefundableOrder {
  status: OrderStatus;
  kind: string;
  currency: string;
  paidAmount: string | null;
  paidCurrency: string | null;
  confirmationCode: string | null;
  paymentMethod: string | null;
}

export interface RefundAsk {
  amount: string;
  confirmPartial: boolean;
}

export interface AllowedRefund {
  amount: Money;
  partial: boolean;
}

const CARD_METHODS = /visa|master|card|amex|american express|diners|discover|unionpay/i;

/**
 * The gateway refunds mobile-money payments in full only. A hosted-page order may also have been
 * paid with mobile money, so the payment method decides; anything not clearly a card counts as
 * mobile money, since refusing a partial refund is the safe mistake.
 */
export function isCardPayment(order: Pick<RefundableOrder, 'kind' | 'paymentMethod'>): boolean {
  if (order.kind === 'mobile_money') return false;
  return !!order.paymentMethod && CARD_METHODS.test(order.paymentMethod);
}

/**
 * The local rules a refund must pass before anything is recorded or sent: a completed payment
 * with a confirmation code, an exact positive amount no larger than what was paid, and an
 * explicit confirmation for a partial refund, which forecloses refunding the rest.
 */
export function checkRefund(order: RefundableOrder, ask: RefundAsk): AllowedRefund {
  if (order.status !== 'completed' || !order.confirmationCode) {
    throw new CheckoutError(
      'order_not_refundable',
      `only completed payments can be refunded; this order is ${order.status}`,
      { order_status: order.status },
    );
  }
  const currency = order.paidCurrency ?? order.currency;
  const paid = Money.of(order.paidAmount ?? '0', currency);
  if (!Money.isValidDecimal(ask.amount)) {
    throw CheckoutError.invalid([
      { field: 'amount', reason: 'must be a decimal string with at most 2 places, e.g. "150.00"' },
    ]);
  }
  const amount = Money.of(ask.amount, currency);
  if (!amount.isPositive()) {
    throw CheckoutError.invalid([{ field: 'amount', reason: 'must be greater than 0' }]);
  }
  if (amount.compare(paid) > 0) {
    throw new CheckoutError(
      'refund_exceeds_payment',
      `the refund (${amount.toString()}) is more than the payment (${paid.toString()})`,
      { paid_amount: paid.toDecimalString(), currency },
    );
  }
  const partial = amount.compare(paid) < 0;
  if (partial && !isCardPayment(order)) {
    throw new CheckoutError(
      'partial_refund_not_allowed',
      `mobile-money payments are refunded in full only (${paid.toString()})`,
      { paid_amount: paid.toDecimalString(), currency },
    );
  }
  if (partial && !ask.confirmPartial) {
    throw new CheckoutError(
      'partial_refund_not_confirmed',
      'a partial refund forecloses refunding the rest: send confirm_partial: true to proceed',
      {
        paid_amount: paid.toDecimalString(),
        currency,
        errors: [{ field: 'confirm_partial', reason: 'must be true for a partial refund' }],
      },
    );
  }
  return { amount, partial };
}
