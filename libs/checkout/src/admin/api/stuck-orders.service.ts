import { Injectable } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { decodeCursor, pageOf } from '../../http/page-cursor';
import { OrderEntity, OrderRepository, RefundEntity } from '@app/persistence';
import { AdminOrderView, toAdminOrderView } from './admin-order-view';

/** Why an operator should look at an order: what `reasonsFor` can say, each at most once. */
export const STUCK_REASONS = [
  'pending_too_long',
  'needs_review',
  'submission_unknown',
  'refund_requested',
  'refund_unknown',
] as const;
export type StuckReason = (typeof STUCK_REASONS)[number];

export interface StuckOrder {
  /** Why an operator should look (STUCK_REASONS). */
  reasons: StuckReason[];
  order: AdminOrderView;
}

const LIST = 'admin-stuck-orders';

export interface StuckPage {
  threshold_minutes: number;
  items: StuckOrder[];
  limit: number;
  next_cursor: string | null;
}

/**
 * Orders that will not settle on their own, or that a person must decide about: pending past the
 * threshold, flagged for review, an order creation whose answer never came back, or a refund the
 * gateway has not confirmed (requested, or unknown after a timeout). Oldest first; each reason is
 * read from its own partial index (or the open refunds), so the answer does not grow with the
 * orders that settled.
 */
@Injectable()
export class StuckOrdersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
  ) {}

  async list(pendingMinutes: number, limit = 200, cursor?: string): Promise<StuckPage> {
    const fingerprint = { pending_minutes: pendingMinutes };
    const position = cursor ? decodeCursor(LIST, fingerprint, cursor) : null;
    const cutoff = new Date(Date.now() - pendingMinutes * 60_000);
    const after = position ? 'AND (o.created_at, o.id) > (SELECT at, id FROM position)' : '';
    const branch = (from: string, where: string) =>
      `(SELECT o.id, o.created_at FROM ${from} WHERE ${where} ${after}
         ORDER BY o.created_at, o.id LIMIT $2)`;
    const rows = (await this.dataSource.query(
      `WITH position AS (
         SELECT COALESCE((SELECT created_at FROM orders WHERE id = $3::uuid), $4::timestamptz) AS at,
                $3::uuid AS id)
       SELECT id FROM (
         ${branch('orders o', `o.status = 'pending' AND o.created_at < $1`)}
         UNION ${branch('orders o', 'o.needs_review')}
         UNION ${branch('orders o', `o.submission_status IN ('unknown', 'submitting') AND o.created_at < $1`)}
         UNION ${branch(
           'refunds r JOIN orders o ON o.id = r.order_id',
           `r.status IN ('requested', 'unknown')`,
         )}
       ) AS stuck ORDER BY created_at, id LIMIT $2`,
      [cutoff, limit + 1, position?.id ?? null, position?.at ?? null],
    )) as { id: string }[];
    const found = await this.dataSource
      .getRepository(OrderEntity)
      .findBy({ id: In(rows.map((row) => row.id)) });
    const byId = new Map(found.map((order) => [order.id, order]));
    const ordered = rows.flatMap((row) => byId.get(row.id) ?? []);
    const page = pageOf(ordered, limit, (o) => ({ at: o.createdAt, id: o.id }), LIST, fingerprint);
    const refundOf = await this.orders.refundsFor(page.rows.map((o) => o.id));
    return {
      threshold_minutes: pendingMinutes,
      items: page.rows.map((order) => {
        const refund = refundOf.get(order.id) ?? null;
        return {
          reasons: reasonsFor(order, refund, cutoff),
          order: toAdminOrderView(order, refund),
        };
      }),
      limit,
      next_cursor: page.next_cursor,
    };
  }
}

export function reasonsFor(
  order: OrderEntity,
  refund: RefundEntity | null,
  cutoff: Date,
): StuckReason[] {
  const reasons: StuckReason[] = [];
  const old = order.createdAt < cutoff;
  if (order.status === 'pending' && old) reasons.push('pending_too_long');
  if (order.needsReview) reasons.push('needs_review');
  if ((order.submissionStatus === 'unknown' || order.submissionStatus === 'submitting') && old)
    reasons.push('submission_unknown');
  if (refund && (refund.status === 'requested' || refund.status === 'unknown'))
    reasons.push(`refund_${refund.status}` as const);
  return reasons;
}
