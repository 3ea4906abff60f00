import { Injectable } from '@nestjs/common';
import { OrderEntity, OrderRepository } from '@app/persistence';
import { CheckoutError } from '../../errors/checkout-error';
import {
  TIMELINE_LIMIT,
  AttemptView,
  OrderView,
  TimelineEntry,
  toAttemptViews,
  toOrderView,
  toTimelineEntry,
} from '../order-view';

export type OrderWithTimeline = OrderView & { attempts: AttemptView[]; timeline: TimelineEntry[] };

/** Reads an order by any of its names, with its refund and timeline, as the shop sees it. */
@Injectable()
export class OrderQueryService {
  constructor(private readonly orders: OrderRepository) {}

  async find(reference: string): Promise<OrderEntity> {
    const order = await this.orders.findByAnyReference(reference);
    if (!order) throw CheckoutError.notFound('order', reference);
    return order;
  }

  async view(reference: string): Promise<OrderWithTimeline> {
    return this.viewOf(await this.find(reference));
  }

  async viewOf(order: OrderEntity): Promise<OrderWithTimeline> {
    const [refund, events, earlier] = await Promise.all([
      this.orders.refundFor(order.id),
      this.orders.timeline(order.id, TIMELINE_LIMIT),
      this.orders.earlierAttempts(order.id),
    ]);
    return {
      ...toOrderView(order, refund),
      attempts: toAttemptViews(order, earlier),
      timeline: events.map(toTimelineEntry),
    };
  }
}
