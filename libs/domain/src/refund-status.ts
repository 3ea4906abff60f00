/**
 * A refund is recorded before the gateway call. The gateway's "200" only means received; money
 * has moved once a lookup reports the order reversed. A timeout leaves the outcome unknown until
 * an admin or a later lookup settles it.
 */
export const REFUND_STATUSES = [
  'requested',
  'accepted',
  'reversed',
  'rejected',
  'unknown',
] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

const NEXT: Record<RefundStatus, readonly RefundStatus[]> = {
  requested: ['accepted', 'rejected', 'unknown'],
  unknown: ['accepted', 'rejected', 'reversed'],
  accepted: ['reversed', 'rejected'],
  reversed: [],
  rejected: [],
};

export function canMoveRefund(from: RefundStatus, to: RefundStatus): boolean {
  return NEXT[from].includes(to);
}

export function isRefundOpen(status: RefundStatus): boolean {
  return NEXT[status].length > 0;
}

/**
 * Open refunds the gateway has taken (or may have): money has moved only once a lookup shows the
 * order reversed, so their orders are looked up until it does. ('requested' is still being sent.)
 */
export const REFUNDS_AWAITING_REVERSAL: readonly RefundStatus[] = REFUND_STATUSES.filter((status) =>
  canMoveRefund(status, 'reversed'),
);
