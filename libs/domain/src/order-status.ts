import { PaymentOutcome } from './payment-outcome';

/** The order's state as the shop sees it. */
export const ORDER_STATUSES = [
  'pending',
  'completed',
  'failed',
  'cancelled',
  'reversed',
  'expired',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** Final states: nothing the gateway reports later moves them, except completed → reversed. */
export function isTerminal(status: OrderStatus): boolean {
  return status === 'cancelled' || status === 'reversed' || status === 'expired';
}

/** Only an unpaid order can be cancelled; the gateway cancels pending or failed orders only. */
export function isCancellable(status: OrderStatus): boolean {
  return status === 'pending' || status === 'failed';
}

export type OutcomeDecision =
  | { kind: 'transition'; to: OrderStatus }
  | { kind: 'unchanged' }
  | { kind: 'review'; reason: string };

/**
 * Applies a looked-up outcome to an order's current status. Results may arrive out of order and
 * more than once, so an order never moves backwards: completed never becomes pending or failed,
 * while failed may still become completed (a customer may pay after a failed attempt).
 */
export function decideOutcome(current: OrderStatus, observed: PaymentOutcome): OutcomeDecision {
  if (observed === 'pending') return { kind: 'unchanged' };
  switch (current) {
    case 'pending':
      if (observed === 'reversed') return { kind: 'transition', to: 'reversed' };
      return { kind: 'transition', to: observed };
    case 'failed':
      if (observed === 'completed') return { kind: 'transition', to: 'completed' };
      if (observed === 'reversed') {
        return { kind: 'review', reason: 'gateway reports a reversal of a payment we saw fail' };
      }
      return { kind: 'unchanged' };
    case 'completed':
      if (observed === 'reversed') return { kind: 'transition', to: 'reversed' };
      return { kind: 'unchanged' };
    case 'reversed':
      return { kind: 'unchanged' };
    case 'cancelled':
    case 'expired':
      if (observed === 'completed' || observed === 'reversed') {
        return {
          kind: 'review',
          reason: `gateway reports ${observed} for an order we hold as ${current}`,
        };
      }
      return { kind: 'unchanged' };
  }
}

/** Unpaid and still open: polled until paid, and cancellable. */
export const UNPAID_STATUSES: readonly OrderStatus[] = ORDER_STATUSES.filter(isCancellable);
