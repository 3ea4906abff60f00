import {
  OrderEntity,
  OrderEventEntity,
  PaymentAttemptEntity,
  RefundEntity,
} from '@app/persistence';
import {
  AttemptView,
  iso,
  OrderView,
  TimelineEntry,
  toAttemptViews,
  toOrderView,
  toTimelineEntry,
} from '../../orders/order-view';
import { AdminRefundView, toAdminRefundView } from '../../refunds/refund-admin-view';

/** The shop's view plus what only an operator needs: the customer, submission and polling state. */
export interface AdminOrderView extends Omit<OrderView, 'refund'> {
  id: string;
  submission_status: string;
  customer_email: string | null;
  customer_phone: string | null;
  msisdn: string | null;
  cancelled_at: string | null;
  reversed_at: string | null;
  last_checked_at: string | null;
  next_poll_at: string | null;
  poll_attempts: number;
  refund: AdminRefundView | null;
}

export function toAdminOrderView(
  order: OrderEntity,
  refund: RefundEntity | null = null,
): AdminOrderView {
  return {
    ...toOrderView(order),
    id: order.id,
    submission_status: order.submissionStatus,
    customer_email: order.customerEmail,
    customer_phone: order.customerPhone,
    msisdn: order.msisdn,
    cancelled_at: iso(order.cancelledAt),
    reversed_at: iso(order.reversedAt),
    last_checked_at: iso(order.lastCheckedAt),
    next_poll_at: iso(order.nextPollAt),
    poll_attempts: order.pollAttempts,
    refund: refund ? toAdminRefundView(refund, order) : null,
  };
}

export interface AdminOrderDetail {
  order: AdminOrderView;
  attempts: AttemptView[];
  timeline: TimelineEntry[];
}

export function toAdminOrderDetail(
  order: OrderEntity,
  refund: RefundEntity | null,
  events: OrderEventEntity[],
  earlierAttempts: PaymentAttemptEntity[],
): AdminOrderDetail {
  return {
    order: toAdminOrderView(order, refund),
    attempts: toAttemptViews(order, earlierAttempts),
    timeline: events.map(toTimelineEntry),
  };
}
