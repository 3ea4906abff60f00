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
