import { ApiExtraModels, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CONFIRMATION_CODE_MAX_LENGTH, ORDER_STATUSES, OrderStatus } from '@app/domain';
import { AttemptRefundStatus, CheckoutKind, SubmissionStatus } from '@app/persistence';
import {
  AMOUNT,
  ATTEMPT_REFUND_STATUSES,
  CURRENCY,
  DATE_TIME,
  INTEGER,
  MERCHANT_REFERENCE,
  NEXT_CURSOR,
  NULLABLE_DATE_TIME,
  objectOrNull,
  ORDER_TRACKING_ID,
  text,
  URL,
  UUID,
} from '../../http/documented-schemas';
import { PAGE_LIMIT_MAX } from '../../http/page-query';
import { CursorPage, PAGE_LIMIT } from '../../http/cursor-page';
import type { OutcomeResult } from '../../orders/outcome-plan';
import { FAILURE_REASON_MAX_LENGTH, REVIEW_REASON_MAX_LENGTH } from '../../orders/order-view';
import {
  ATTEMPT_NUMBER,
  ATTEMPTS_PER_ORDER_LIMIT,
  CHECKOUT_KINDS,
  TIMELINE_LIMIT,
  type AttemptView,
} from '../../orders/order-view';
import { TimelineEntryResponse } from '../../orders/timeline-entry-response';
import { AdminRefundResponse } from '../../refunds/refund-admin-view';
import { PENDING_MINUTES_MAX } from './admin.dto';
import type { AdminOrderDetail as AdminOrderDetailView, AdminOrderView } from './admin-order-view';
import { COUNT_CAP, type OrderPage } from './admin-orders.service';
import { STUCK_REASONS, type StuckOrder, type StuckPage } from './stuck-orders.service';
import { membersOf } from './admin-response-schemas';

/**
 * Documentation of the admin answers (OpenAPI only: the JSON is built by the views and services
 * each class names). Each class implements the type it documents, so a field added there without
 * its documentation fails the type check.
 */

const SUBMISSION_STATUSES = membersOf<SubmissionStatus>({
  submitting: true,
  submitted: true,
  rejected: true,
  unknown: true,
});

/** OrderOutcomeService's result kinds (order-outcome.service.ts `OutcomeResult`). */
const SYNC_RESULTS = membersOf<OutcomeResult['kind']>({
  transitioned: true,
  unchanged: true,
  flagged: true,
  order_missing: true,
});

/** orders / payment_attempts .push_merchant_reference: varchar(100). */
const PUSH_MERCHANT_REFERENCE_LENGTH = 100;

/** The shop's view of an order plus what only an operator needs (admin-order-view.ts). */
@ApiExtraModels(AdminRefundResponse)
export class AdminOrderResponse implements AdminOrderView {
  @ApiProperty({ ...UUID, example: '6d1f3c2a-8b4e-4f0a-9c7d-2e5b1a0f3c4d' })
  id!: string;

  @ApiProperty({ ...MERCHANT_REFERENCE, description: "The shop's reference" })
  reference!: string;

  @ApiProperty({
    ...ATTEMPT_NUMBER,
    example: 1,
    description: "The payment attempt the order's payment fields describe",
  })
  attempt!: number;

  @ApiProperty({
    ...ORDER_TRACKING_ID,
    nullable: true,
    description: "The gateway's id of the current attempt; null until the gateway answered",
  })
  order_tracking_id!: string | null;

  @ApiProperty(text(PUSH_MERCHANT_REFERENCE_LENGTH, { nullable: true, example: null }))
  push_merchant_reference!: string | null;

  @ApiProperty({ type: String, enum: CHECKOUT_KINDS, example: 'hosted' })
  kind!: CheckoutKind;

  @ApiProperty({ type: String, enum: ORDER_STATUSES, example: 'completed' })
  status!: OrderStatus;

  @ApiProperty({
    type: String,
    enum: SUBMISSION_STATUSES,
    example: 'submitted',
    description: "Where the gateway's order-creation call stands",
  })
  submission_status!: SubmissionStatus;

  @ApiProperty({ ...AMOUNT, description: 'Decimal string' })
  amount!: string;

  @ApiProperty(CURRENCY)
  currency!: string;

  // orders.description: varchar(100).
  @ApiProperty(text(100, { example: 'Two concert tickets' }))
  description!: string;

  @ApiProperty(
    text(CONFIRMATION_CODE_MAX_LENGTH, { nullable: true, example: '7840512343596574603009' }),
  )
  confirmation_code!: string | null;

  // orders.payment_method: varchar(64).
  @ApiProperty(text(64, { nullable: true, example: 'Visa' }))
  payment_method!: string | null;

  @ApiProperty({
    // orders.payment_account: varchar(64); masking keeps its length.
    ...text(64, { nullable: true }),
    example: '444444xxxxxx4444',
    description: 'Masked: a card as the gateway sent it, a phone number to its last three digits',
  })
  payment_account!: string | null;

  @ApiProperty({ ...AMOUNT, nullable: true })
  paid_amount!: string | null;

  // orders.paid_currency: varchar(3), as the gateway reported it (upper-cased).
  @ApiProperty(text(3, { nullable: true, example: 'KES' }))
  paid_currency!: string | null;

  @ApiProperty({ ...NULLABLE_DATE_TIME, example: '2026-01-02T09:31:10.000Z' })
  paid_at!: string | null;

  @ApiProperty(text(FAILURE_REASON_MAX_LENGTH, { nullable: true, example: null }))
  failure_reason!: string | null;

  @ApiProperty({ type: Boolean, example: false })
  needs_review!: boolean;

  // orders.review_reason: text, cut where it is written (OrderJournal.flagForReview).
  @ApiProperty(text(REVIEW_REASON_MAX_LENGTH, { nullable: true, example: null }))
  review_reason!: string | null;

  @ApiProperty({
    ...URL,
    nullable: true,
    example:
      'https://pay.example/pesapaliframe/PesapalIframe3/Index?OrderTrackingId=b8a6c3f0-1d2e-4c5b-9a7f-0e1d2c3b4a59',
  })
  redirect_url!: string | null;

  // orders.business_number: varchar(64).
  @ApiProperty(text(64, { nullable: true, example: null }))
  business_number!: string | null;

  // orders.push_account_number: varchar(100).
  @ApiProperty(text(100, { nullable: true, example: null }))
  account_number!: string | null;

  @ApiProperty({
    ...text(20),
    example: 'default',
    description: 'The merchant account the payment is taken on (PESAPAL_ACCOUNTS)',
  })
  account!: string;

  @ApiProperty({
    ...UUID,
    nullable: true,
    example: null,
    description: 'The payment link it was paid through (its id), if any',
  })
  payment_link!: string | null;

  // orders.customer_email: varchar(254).
  @ApiProperty(text(254, { nullable: true, example: 'jane@example.com' }))
  customer_email!: string | null;

  // orders.customer_phone: varchar(32).
  @ApiProperty(text(32, { nullable: true, example: '+254712345678' }))
  customer_phone!: string | null;

  @ApiProperty({
    // orders.msisdn: varchar(32).
    ...text(32, { nullable: true }),
    example: null,
    description: 'The phone a mobile-money prompt went to',
  })
  msisdn!: string | null;

  @ApiProperty({ ...NULLABLE_DATE_TIME, example: null })
  cancelled_at!: string | null;

  @ApiProperty({ ...NULLABLE_DATE_TIME, example: null })
  reversed_at!: string | null;

  @ApiProperty({ ...NULLABLE_DATE_TIME, example: '2026-01-02T09:31:10.000Z' })
  last_checked_at!: string | null;

  @ApiProperty({
    ...NULLABLE_DATE_TIME,
    example: null,
    description: 'When the poller looks it up next; null once it is final',
  })
  next_poll_at!: string | null;

  @ApiProperty({ ...INTEGER, example: 2 })
  poll_attempts!: number;

  @ApiProperty({ ...DATE_TIME, example: '2026-01-02T09:30:00.000Z' })
  created_at!: string;

  @ApiProperty({ ...DATE_TIME, example: '2026-01-02T09:31:12.000Z' })
  updated_at!: string;

  @ApiProperty({
    ...objectOrNull(AdminRefundResponse),
    description: "The order's latest refund, or null",
  })
  refund!: AdminRefundResponse | null;
}

/** A status's count, up to COUNT_CAP (admin-orders.service.ts counts no further). */
const STATUS_COUNT = { ...INTEGER, maximum: COUNT_CAP } as const;

/** Orders per status for the list's filters without the status one, each up to count_cap. */
export class AdminOrderStatusCounts implements Record<OrderStatus, number> {
  @ApiProperty({ ...STATUS_COUNT, example: 12 }) pending!: number;
  @ApiProperty({ ...STATUS_COUNT, example: 1000 }) completed!: number;
  @ApiProperty({ ...STATUS_COUNT, example: 7 }) failed!: number;
  @ApiProperty({ ...STATUS_COUNT, example: 3 }) cancelled!: number;
  @ApiProperty({ ...STATUS_COUNT, example: 0 }) reversed!: number;
  @ApiProperty({ ...STATUS_COUNT, example: 41 }) expired!: number;
}

/** GET /v1/admin/orders. */
export class AdminOrderPage
  extends CursorPage(AdminOrderResponse, 'Newest first')
  implements OrderPage
{
  @ApiProperty({
    type: AdminOrderStatusCounts,
    description: 'A count equal to count_cap means at least that many',
  })
  counts!: AdminOrderStatusCounts;

  @ApiProperty({ ...INTEGER, minimum: COUNT_CAP, maximum: COUNT_CAP, example: COUNT_CAP })
  count_cap!: number;
}

/** One order of the stuck list, with why an operator should look. */
export class AdminStuckOrder implements StuckOrder {
  @ApiProperty({
    type: [String],
    enum: STUCK_REASONS,
    maxItems: STUCK_REASONS.length,
    example: ['pending_too_long'],
    description:
      'pending_too_long, needs_review, submission_unknown (the creation answer never came), refund_requested or refund_unknown (a refund the gateway has not confirmed)',
  })
  reasons!: (typeof STUCK_REASONS)[number][];

  @ApiProperty({ type: AdminOrderResponse })
  order!: AdminOrderResponse;
}

/** GET /v1/admin/orders/stuck. */
export class AdminStuckOrderPage implements StuckPage {
  @ApiProperty({
    ...INTEGER,
    minimum: 1,
    maximum: PENDING_MINUTES_MAX,
    example: 30,
    description: 'pending_minutes as applied',
  })
  threshold_minutes!: number;

  @ApiProperty({ type: [AdminStuckOrder], maxItems: PAGE_LIMIT_MAX, description: 'Oldest first' })
  items!: AdminStuckOrder[];

  @ApiProperty({ ...PAGE_LIMIT, example: 200 })
  limit!: number;

  @ApiProperty(NEXT_CURSOR)
  next_cursor!: string | null;
}

/** One payment attempt of the order, earlier or current (order-view.ts `toAttemptViews`). */
export class AdminOrderAttempt implements AttemptView {
  @ApiProperty({ ...ATTEMPT_NUMBER, example: 1 })
  number!: number;

  @ApiProperty({ type: Boolean, example: false, description: "The order row's own attempt" })
  current!: boolean;

  @ApiProperty({ type: String, enum: CHECKOUT_KINDS, example: 'hosted' })
  kind!: CheckoutKind;

  @ApiProperty({
    // orders / payment_attempts .gateway_reference: varchar(50), as merchant_reference.
    ...MERCHANT_REFERENCE,
    description: 'The id it was sent to the gateway under',
  })
  gateway_reference!: string;

  @ApiProperty({ ...ORDER_TRACKING_ID, nullable: true })
  order_tracking_id!: string | null;

  @ApiProperty(text(PUSH_MERCHANT_REFERENCE_LENGTH, { nullable: true, example: null }))
  push_merchant_reference!: string | null;

  @ApiProperty({ type: String, enum: ORDER_STATUSES, example: 'failed' })
  status!: OrderStatus;

  @ApiProperty(
    text(FAILURE_REASON_MAX_LENGTH, { nullable: true, example: 'request_terminated_by_user' }),
  )
  failure_reason!: string | null;

  @ApiProperty(text(CONFIRMATION_CODE_MAX_LENGTH, { nullable: true, example: null }))
  confirmation_code!: string | null;

  @ApiProperty({ ...DATE_TIME, example: '2026-01-02T09:30:00.000Z' })
  started_at!: string;

  @ApiProperty({
    ...NULLABLE_DATE_TIME,
    example: '2026-01-02T09:40:00.000Z',
    description: 'When the next attempt replaced it; null for the current one',
  })
  replaced_at!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    enum: [...ATTEMPT_REFUND_STATUSES, null],
    example: null,
    description:
      "The refund of this attempt's payment when it paid the order a second time; always null for the current attempt (its refund is the order's)",
  })
  refund_status!: AttemptRefundStatus | null;
}

/**
 * One entry of the order's timeline: the shop's, with the operators' wording of two fields (the
 * initializers only let the subclass redocument them; nothing constructs these classes).
 */
export class AdminOrderTimelineEntry extends TimelineEntryResponse {
  @ApiProperty({
    type: String,
    description: "The admin key's name, or null for the service itself",
  })
  override actor: string | null = null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: null,
    description: 'The raw gateway record that caused the change',
  })
  override gateway_record: Record<string, unknown> | null = null;
}

/** GET /v1/admin/orders/{reference}, and what a cancel answers. */
export class AdminOrderDetail implements AdminOrderDetailView {
  @ApiProperty({ type: AdminOrderResponse })
  order!: AdminOrderResponse;

  @ApiProperty({
    type: [AdminOrderAttempt],
    maxItems: ATTEMPTS_PER_ORDER_LIMIT,
    description: 'Every payment attempt, first first',
  })
  attempts!: AdminOrderAttempt[];

  @ApiProperty({
    type: [AdminOrderTimelineEntry],
    maxItems: TIMELINE_LIMIT,
    description: `The latest ${TIMELINE_LIMIT} timeline entries at most, oldest first`,
  })
  timeline!: AdminOrderTimelineEntry[];
}

/** What AdminOrdersController.syncNow answers: what the lookup did, then the order as it is now. */
export type AdminOrderSyncAnswer = AdminOrderDetailView & {
  result: OutcomeResult['kind'];
  reason?: string;
};

/** POST /v1/admin/orders/{reference}/sync: what the lookup did, then the order as it is now. */
export class AdminOrderSyncResult extends AdminOrderDetail implements AdminOrderSyncAnswer {
  @ApiProperty({
    type: String,
    enum: SYNC_RESULTS,
    example: 'transitioned',
    description:
      'transitioned (the status moved), unchanged, or flagged (set aside for review: see reason)',
  })
  result!: (typeof SYNC_RESULTS)[number];

  @ApiPropertyOptional({
    // As the order's review_reason keeps it (cut to the same length).
    ...text(REVIEW_REASON_MAX_LENGTH),
    example: 'paid amount differs: expected 1500.00 KES, gateway 15.00 KES',
    description: 'Only when result is flagged',
  })
  reason?: string;
}
