import type { PaymentLinkEntity } from '@app/persistence';

/**
 * active: its page takes payments; expired: past expires_at; completed: its last use was paid;
 * deactivated: switched off by an operator. Deactivated and completed are for good.
 */
export const PAYMENT_LINK_STATUSES = ['active', 'expired', 'completed', 'deactivated'] as const;
export type PaymentLinkStatus = (typeof PAYMENT_LINK_STATUSES)[number];

export function paymentLinkStatus(
  link: Pick<PaymentLinkEntity, 'active' | 'completedAt' | 'expiresAt'>,
  now = new Date(),
): PaymentLinkStatus {
  if (!link.active) return 'deactivated';
  if (link.completedAt) return 'completed';
  if (link.expiresAt && link.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

/** The SQL condition of a status over the link row `l` (the list's filter). */
export function paymentLinkStatusSql(status: PaymentLinkStatus): string {
  switch (status) {
    case 'deactivated':
      return 'NOT l.active';
    case 'completed':
      return 'l.active AND l.completed_at IS NOT NULL';
    case 'expired':
      return 'l.active AND l.completed_at IS NULL AND l.expires_at <= now()';
    case 'active':
      return 'l.active AND l.completed_at IS NULL AND (l.expires_at IS NULL OR l.expires_at > now())';
  }
}
