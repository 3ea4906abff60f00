import { Injectable } from '@nestjs/common';
import { types } from 'pg';
import { DataSource } from 'typeorm';
import {
  OrderEntity,
  orderIdNamedBy,
  OrderRepository,
  PreparedStatement,
  runPrepared,
} from '@app/persistence';
import { CheckoutError } from '../../errors/checkout-error';
import {
  ATTEMPTS_PER_ORDER_LIMIT,
  TIMELINE_LIMIT,
  AttemptView,
  AttemptViewSource,
  OrderView,
  OrderViewSource,
  RefundViewSource,
  TimelineEntry,
  TimelineEntrySource,
  toAttemptViews,
  toOrderView,
  toTimelineEntry,
} from '../order-view';

export type OrderWithTimeline = OrderView & { attempts: AttemptView[]; timeline: TimelineEntry[] };

/** A row's instants as json_agg carries them: the timestamptz text pg would have sent. */
type InstantsAsText<T> = {
  [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K];
};

interface OrderStatusRow extends OrderViewSource {
  refund: InstantsAsText<RefundViewSource> | null;
  earlier: InstantsAsText<AttemptViewSource>[];
  timeline: InstantsAsText<TimelineEntrySource>[];
}

/**
 * The shop's status read in one round trip: the order found by any of its names (orderIdNamedBy,
 * as OrderRepository.findByAnyReference finds it), with its refund (the one not rejected, else
 * the latest), its earlier attempts (at most ATTEMPTS_PER_ORDER_LIMIT, $3) and its latest
 * TIMELINE_LIMIT ($2) events, and only the columns the answer shows. Amounts go into the JSON as
 * text (exact), instants as pg's own timestamptz text, parsed below as pg parses a column.
 */
const ORDER_STATUS: PreparedStatement = {
  name: 'order-status-read',
  text: `SELECT o.merchant_reference AS "merchantReference", o.attempt_number AS "attemptNumber",
       o.order_tracking_id AS "orderTrackingId", o.push_merchant_reference AS "pushMerchantReference",
       o.gateway_reference AS "gatewayReference", o.kind, o.status, o.amount, o.currency,
       o.gateway_account AS "gatewayAccount", o.payment_link_id AS "paymentLinkId", o.description, o.confirmation_code AS "confirmationCode",
       o.payment_method AS "paymentMethod", o.payment_account AS "paymentAccount",
       o.paid_amount AS "paidAmount", o.paid_currency AS "paidCurrency", o.paid_at AS "paidAt",
       o.failure_reason AS "failureReason", o.needs_review AS "needsReview",
       o.review_reason AS "reviewReason", o.redirect_url AS "redirectUrl",
       o.business_number AS "businessNumber", o.push_account_number AS "pushAccountNumber",
       o.attempt_started_at AS "attemptStartedAt", o.created_at AS "createdAt",
       o.updated_at AS "updatedAt",
       (SELECT json_build_object('id', r.id, 'status', r.status, 'amount', r.amount::text,
                 'currency', r.currency, 'isPartial', r.is_partial, 'reason', r.reason,
                 'requestedBy', r.requested_by, 'gatewayStatus', r.gateway_status,
                 'gatewayMessage', r.gateway_message, 'createdAt', r.created_at::text,
                 'acceptedAt', r.accepted_at::text, 'reversedAt', r.reversed_at::text,
                 'rejectedAt', r.rejected_at::text)
          FROM refunds r
         WHERE r.order_id = o.id
         ORDER BY r.status = 'rejected', r.created_at DESC
         LIMIT 1) AS refund,
       COALESCE((SELECT json_agg(json_build_object('number', a.number, 'kind', a.kind,
                   'gatewayReference', a.gateway_reference, 'orderTrackingId', a.order_tracking_id,
                   'pushMerchantReference', a.push_merchant_reference, 'status', a.status,
                   'failureReason', a.failure_reason, 'confirmationCode', a.confirmation_code,
                   'startedAt', a.started_at::text, 'replacedAt', a.replaced_at::text,
                   'refundStatus', a.refund_status) ORDER BY a.number)
          FROM (SELECT * FROM payment_attempts WHERE order_id = o.id ORDER BY number LIMIT $3) a),
         '[]'::json) AS earlier,
       COALESCE((SELECT json_agg(json_build_object('type', e.type, 'fromStatus', e.from_status,
                   'toStatus', e.to_status, 'source', e.source, 'actor', e.actor,
                   'createdAt', e.created_at::text, 'details', e.details,
                   'gatewayRecord', e.gateway_record) ORDER BY e.created_at, e.id)
          FROM (SELECT * FROM order_events WHERE order_id = o.id
                 ORDER BY created_at DESC, id DESC LIMIT $2) e),
         '[]'::json) AS timeline
  FROM orders o
 WHERE o.id = ${orderIdNamedBy('$1')}`,
};

const parseTimestamptz = types.getTypeParser(types.builtins.TIMESTAMPTZ) as (text: string) => Date;
const instantOrNull = (text: string | null): Date | null =>
  text === null ? null : parseTimestamptz(text);

/** Reads an order by any of its names, with its refund and timeline, as the shop sees it. */
@Injectable()
export class OrderQueryService {
  constructor(
    private readonly orders: OrderRepository,
    private readonly dataSource: DataSource,
  ) {}

  async find(reference: string): Promise<OrderEntity> {
    const order = await this.orders.findByAnyReference(reference);
    if (!order) throw CheckoutError.notFound('order', reference);
    return order;
  }

  async view(reference: string): Promise<OrderWithTimeline> {
    const [row] = await runPrepared<OrderStatusRow>(this.dataSource, ORDER_STATUS, [
      reference,
      TIMELINE_LIMIT,
      ATTEMPTS_PER_ORDER_LIMIT,
    ]);
    if (!row) throw CheckoutError.notFound('order', reference);
    const refund = row.refund && refundOf(row.refund);
    return this.answer(row, refund, row.earlier.map(attemptOf), row.timeline.map(eventOf));
  }

  async viewOf(order: OrderEntity): Promise<OrderWithTimeline> {
    const [refund, events, earlier] = await Promise.all([
      this.orders.refundFor(order.id),
      this.orders.timeline(order.id, TIMELINE_LIMIT),
      this.orders.earlierAttempts(order.id),
    ]);
    return this.answer(order, refund, earlier, events);
  }

  private answer(
    order: OrderViewSource,
    refund: RefundViewSource | null,
    earlier: AttemptViewSource[],
    events: TimelineEntrySource[],
  ): OrderWithTimeline {
    return {
      ...toOrderView(order, refund),
      attempts: toAttemptViews(order, earlier),
      timeline: events.map(toTimelineEntry),
    };
  }
}

function refundOf(refund: InstantsAsText<RefundViewSource>): RefundViewSource {
  return {
    ...refund,
    createdAt: parseTimestamptz(refund.createdAt),
    acceptedAt: instantOrNull(refund.acceptedAt),
    reversedAt: instantOrNull(refund.reversedAt),
    rejectedAt: instantOrNull(refund.rejectedAt),
  };
}

function attemptOf(attempt: InstantsAsText<AttemptViewSource>): AttemptViewSource {
  return {
    ...attempt,
    startedAt: parseTimestamptz(attempt.startedAt),
    replacedAt: parseTimestamptz(attempt.replacedAt),
  };
}

function eventOf(event: InstantsAsText<TimelineEntrySource>): TimelineEntrySource {
  return { ...event, createdAt: parseTimestamptz(event.createdAt) };
}
