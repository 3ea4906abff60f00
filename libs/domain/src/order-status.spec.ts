import { decideOutcome, isCancellable, isTerminal, OrderStatus } from './order-status';
import { paymentOutcomeFromStatusCode, PaymentOutcome } from './payment-outcome';
import { canMoveRefund } from './refund-status';

describe('paymentOutcomeFromStatusCode', () => {
  it('maps the four documented codes and nothing else', () => {
    expect([0, 1, 2, 3].map(paymentOutcomeFromStatusCode)).toEqual([
      'pending',
      'completed',
      'failed',
      'reversed',
    ]);
    expect(paymentOutcomeFromStatusCode(4)).toBeUndefined();
  });
});

describe('decideOutcome', () => {
  const to = (current: OrderStatus, observed: PaymentOutcome) => decideOutcome(current, observed);

  it('moves a pending order to what the gateway reports', () => {
    expect(to('pending', 'completed')).toEqual({ kind: 'transition', to: 'completed' });
    expect(to('pending', 'failed')).toEqual({ kind: 'transition', to: 'failed' });
    expect(to('pending', 'pending')).toEqual({ kind: 'unchanged' });
  });

  it('never moves a completed order backwards', () => {
    expect(to('completed', 'pending')).toEqual({ kind: 'unchanged' });
    expect(to('completed', 'failed')).toEqual({ kind: 'unchanged' });
    expect(to('completed', 'completed')).toEqual({ kind: 'unchanged' });
    expect(to('completed', 'reversed')).toEqual({ kind: 'transition', to: 'reversed' });
  });

  it('lets a failed order still complete, but not go back to pending', () => {
    expect(to('failed', 'completed')).toEqual({ kind: 'transition', to: 'completed' });
    expect(to('failed', 'pending')).toEqual({ kind: 'unchanged' });
  });

  it('flags a payment reported on a cancelled or expired order for review', () => {
    expect(to('cancelled', 'completed').kind).toBe('review');
    expect(to('expired', 'completed').kind).toBe('review');
    expect(to('cancelled', 'failed')).toEqual({ kind: 'unchanged' });
  });

  it('knows which states are final and which can be cancelled', () => {
    expect(isTerminal('completed')).toBe(false);
    expect(isTerminal('reversed')).toBe(true);
    expect(isCancellable('pending')).toBe(true);
    expect(isCancellable('failed')).toBe(true);
    expect(isCancellable('completed')).toBe(false);
  });
});

describe('refund transitions', () => {
  it('allows requested → accepted → reversed and stops at final states', () => {
    expect(canMoveRefund('requested', 'accepted')).toBe(true);
    expect(canMoveRefund('accepted', 'reversed')).toBe(true);
    expect(canMoveRefund('reversed', 'rejected')).toBe(false);
    expect(canMoveRefund('requested', 'reversed')).toBe(false);
    expect(canMoveRefund('unknown', 'accepted')).toBe(true);
  });
});
