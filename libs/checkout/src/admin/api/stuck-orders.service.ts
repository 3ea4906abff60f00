import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { OrderEntity, OrderRepository, RefundEntity } from '@app/persistence';
import { AdminOrderView, toAdminOrderView } from './admin-order-view';

export interface StuckOrder {
  /** Why an operator should look: pending_too_long, needs_review, submission_unknown, refund_open */
  reasons: string[];
  order: AdminOrderView;
}

const LIMIT = 200;

/**
 * Orders that will not settle on their own, or that a person must decide about: pending past the
 * threshold, flagged for review, an order creation whose answer never came back, or a refund the
 * gateway has not confirmed (requested, or unknown after a timeout).
 */
@Injectable()
export class StuckOrdersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
  ) {}

  async list(pendingMinutes: number): Promise<{ threshold_minutes: number; items: StuckOrder[] }> {
    const cutoff = new Date(Date.now() - pendingMinutes * 60_000);
    const orders = await this.dataSource
      .getRepository(OrderEntity)
      .createQueryBuilder('o')
      .leftJoin(RefundEntity, 'r', 'r.order_id = o.id')
      .where(`(o.status = 'pending' AND o.created_at < :cutoff)`, { cutoff })
      .orWhere('o.needs_review = true')
      .orWhere(`o.submission_status IN ('unknown', 'submitting') AND o.created_at < :cutoff`)
      .orWhere(`r.status IN ('requested', 'unknown')`)
      .orderBy('o.created_at', 'ASC')
      .take(LIMIT)
      .getMany();
    const refundOf = await this.orders.refundsFor(orders.map((o) => o.id));
    return {
      threshold_minutes: pendingMinutes,
      items: orders.map((order) => {
        const refund = refundOf.get(order.id) ?? null;
        return {
          reasons: reasonsFor(order, refund, cutoff),
          order: toAdminOrderView(order, refund),
        };
      }),
    };
  }
}

export function reasonsFor(
  order: OrderEntity,
  refund: RefundEntity | null,
  cutoff: Date,
): string[] {
  const reasons: string[] = [];
  const old = order.createdAt < cutoff;
  if (order.status === 'pending' && old) reasons.push('pending_too_long');
  if (order.needsReview) reasons.push('needs_review');
  if ((order.submissionStatus === 'unknown' || order.submissionStatus === 'submitting') && old)
    reasons.push('submission_unknown');
  if (refund && (refund.status === 'requested' || refund.status === 'unknown'))
    reasons.push(`refund_${refund.status}`);
  return reasons;
}
