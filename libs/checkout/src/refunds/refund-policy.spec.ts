import { CheckoutError } from '../errors/checkout-error';
import { checkRefund, isCardPayment, RefundableOrder } from './refund-policy';

const paidByCard: RefundableOrder = {
  status: 'completed',
  kind: 'hosted',
  currency: 'KES',
  paidAmount: '1500.00',
  paidCurrency: 'KES',
  confirmationCode: '1234567890123456789012',
  paymentMethod: 'Visa',
};

function refusal(run: () => unknown): CheckoutError {
  try {
    run();
  } catch (error) {
    if (error instanceof CheckoutError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('refund policy', () => {
  it('allows a full refund of a completed card payment, exactly', () => {
    const allowed = checkRefund(paidByCard, { amount: '1500', confirmPartial: false });
    expect(allowed.partial).toBe(false);
    expect(allowed.amount.toDecimalString()).toBe('1500.00');
  });

  it.each(['pending', 'failed', 'cancelled', 'reversed', 'expired'] as const)(
    'refuses a %s order with order_not_refundable (409)',
    (status) => {
      const error = refusal(() =>
        checkRefund({ ...paidByCard, status }, { amount: '1', confirmPartial: true }),
      );
      expect([error.category, error.code]).toEqual(['conflict', 'order_not_refundable']);
    },
  );

  it('refuses zero, more than paid, and inexact amounts', () => {
    expect(
      refusal(() => checkRefund(paidByCard, { amount: '0.00', confirmPartial: true })).code,
    ).toBe('validation_failed');
    expect(
      refusal(() => checkRefund(paidByCard, { amount: '1500.01', confirmPartial: true })).code,
    ).toBe('refund_exceeds_payment');
    expect(
      refusal(() => checkRefund(paidByCard, { amount: '10.001', confirmPartial: true })).code,
    ).toBe('validation_failed');
  });

  it('asks for confirm_partial before a partial card refund, naming the field', () => {
    const error = refusal(() =>
      checkRefund(paidByCard, { amount: '500.00', confirmPartial: false }),
    );
    expect(error.code).toBe('partial_refund_not_confirmed');
    expect(error.details.errors).toEqual([
      { field: 'confirm_partial', reason: 'must be true for a partial refund' },
    ]);
    expect(checkRefund(paidByCard, { amount: '500.00', confirmPartial: true }).partial).toBe(true);
  });

  it('refunds mobile-money payments in full only, even from the hosted page', () => {
    const mpesa = { ...paidByCard, paymentMethod: 'MpesaKE' };
    expect(isCardPayment(mpesa)).toBe(false);
    expect(refusal(() => checkRefund(mpesa, { amount: '500.00', confirmPartial: true })).code).toBe(
      'partial_refund_not_allowed',
    );
    expect(checkRefund(mpesa, { amount: '1500.00', confirmPartial: false }).partial).toBe(false);
  });
});
