import { ApiExtraModels, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ORDER_STATUSES, OrderStatus, PaymentOutcome } from '@app/domain';
import {
  AttemptRefundStatus,
  CheckoutKind,
  EventSource,
  NotificationStatus,
  SubmissionStatus,
} from '@app/persistence';
import { QUEUE_NAMES } from '@app/queues';
import {
  ATTEMPT_REFUND_STATUSES,
  DATE_TIME,
  EVENT_SOURCES,
  INTEGER,
  NEXT_CURSOR,
  NULLABLE_DATE_TIME,
  objectOrNull,
  UUID,
} from '../../http/documented-schemas';
import type { AttemptView, TimelineEntry } from '../../orders/order-view';
import { AdminRefundResponse } from '../../refunds/refund-admin-view';
import type { GatewayMismatch } from '../gateway-comparison';
import type { ReconciliationReport } from '../reconciliation.service';
import type { InvariantViolations } from '../reconciliation-invariants';
import type { AdminOperationsController } from './admin-operations.controller';
import type { AdminOrdersController } from './admin-orders.controller';
import type { AdminOrderDetail as AdminOrderDetailView, AdminOrderView } from './admin-order-view';
import type { OrderPage } from './admin-orders.service';
import type { DeadJobView, DeadLetterService } from './dead-letters/dead-letter.service';
import type {
  NotificationInboxService,
  NotificationPage,
  NotificationView,
} from './notification-inbox.service';
import type { StuckOrder, StuckPage } from './stuck-orders.service';

/**
 * Documentation of the admin answers (OpenAPI only: the JSON is built by the views and services
 * each class names). Each class implements the type it documents, so a field added there without
 * its documentation fails the type check.
 */

type Answer<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;

const CHECKOUT_KINDS: readonly CheckoutKind[] = ['hosted', 'mobile_money'];
const SUBMISSION_STATUSES: readonly SubmissionStatus[] = [
  'submitting',
  'submitted',
  'rejected',
  'unknown',
];
const NOTIFICATION_STATUSES: readonly NotificationStatus[] = [
  'received',
  'queued',
  'applied',
  'unmatched',
  'ignored',
  'failed',
];
const PAYMENT_OUTCOMES: readonly PaymentOutcome[] = ['pending', 'completed', 'failed', 'reversed'];
/** What stuck-orders.service.ts `reasonsFor` can say. */
const STUCK_REASONS = [
  'pending_too_long',
  'needs_review',
  'submission_unknown',
  'refund_requested',
  'refund_unknown',
] as const;
/** OrderOutcomeService's result kinds (order-outcome.service.ts `OutcomeResult`). */
const SYNC_RESULTS = ['transitioned', 'unchanged', 'flagged', 'order_missing'] as const;
/** BullMQ's job states, and 'unknown' for a job it no longer finds. */
const JOB_STATES = [
  'completed',
  'failed',
  'active',
  'delayed',
  'prioritized',
  'waiting',
  'waiting-children',
  'unknown',
] as const;

// ─── Orders ────────────────────────────────────────────────────────────────────────────────────

/** The shop's view of an order plus what only an operator needs (admin-order-view.ts). */
@ApiExtraModels(AdminRefundResponse)
export class AdminOrderResponse implements AdminOrderView {
  @ApiProperty({ ...UUID, example: '6d1f3c2a-8b4e-4f0a-9c7d-2e5b1a0f3c4d' })
  id!: string;

  @ApiProperty({ type: String, example: 'ORDER-2041', description: "The shop's reference" })
  reference!: string;

  @ApiProperty({
    ...INTEGER,
    example: 1,
    description: "The payment attempt the order's payment fields describe",
  })
  attempt!: number;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'b8a6c3f0-1d2e-4c5b-9a7f-0e1d2c3b4a59',
    description: "The gateway's id of the current attempt; null until the gateway answered",
  })
  order_tracking_id!: string | null;

  @ApiProperty({ type: String, nullable: true, example: null })
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

  @ApiProperty({ type: String, example: '1500.00', description: 'Decimal string' })
  amount!: string;

  @ApiProperty({ type: String, example: 'KES' })
  currency!: string;

  @ApiProperty({ type: String, example: 'Two concert tickets' })
  description!: string;

  @ApiProperty({ type: String, nullable: true, example: '7840512343596574603009' })
  confirmation_code!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'Visa' })
  payment_method!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '444444xxxxxx4444',
    description: 'Masked: a card as the gateway sent it, a phone number to its last three digits',
  })
  payment_account!: string | null;

  @ApiProperty({ type: String, nullable: true, example: '1500.00' })
  paid_amount!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'KES' })
  paid_currency!: string | null;

  @ApiProperty({ ...NULLABLE_DATE_TIME, example: '2026-01-02T09:31:10.000Z' })
  paid_at!: string | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  failure_reason!: string | null;

  @ApiProperty({ type: Boolean, example: false })
  needs_review!: boolean;

  @ApiProperty({ type: String, nullable: true, example: null })
  review_reason!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example:
      'https://pay.example/pesapaliframe/PesapalIframe3/Index?OrderTrackingId=b8a6c3f0-1d2e-4c5b-9a7f-0e1d2c3b4a59',
  })
  redirect_url!: string | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  business_number!: string | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  account_number!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'jane@example.com' })
  customer_email!: string | null;

  @ApiProperty({ type: String, nullable: true, example: '+254712345678' })
  customer_phone!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
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

/** Orders per status for the list's filters without the status one, each up to count_cap. */
export class AdminOrderStatusCounts implements Record<OrderStatus, number> {
  @ApiProperty({ ...INTEGER, example: 12 }) pending!: number;
  @ApiProperty({ ...INTEGER, example: 1000 }) completed!: number;
  @ApiProperty({ ...INTEGER, example: 7 }) failed!: number;
  @ApiProperty({ ...INTEGER, example: 3 }) cancelled!: number;
  @ApiProperty({ ...INTEGER, example: 0 }) reversed!: number;
  @ApiProperty({ ...INTEGER, example: 41 }) expired!: number;
}

/** GET /v1/admin/orders. */
export class AdminOrderPage implements OrderPage {
  @ApiProperty({ type: [AdminOrderResponse], description: 'Newest first' })
  items!: AdminOrderResponse[];

  @ApiProperty({ ...INTEGER, example: 50 })
  limit!: number;

  @ApiProperty(NEXT_CURSOR)
  next_cursor!: string | null;

  @ApiProperty({
    type: AdminOrderStatusCounts,
    description: 'A count equal to count_cap means at least that many',
  })
  counts!: AdminOrderStatusCounts;

  @ApiProperty({ ...INTEGER, example: 1000 })
  count_cap!: number;
}

/** One order of the stuck list, with why an operator should look. */
export class AdminStuckOrder implements StuckOrder {
  @ApiProperty({
    type: [String],
    enum: STUCK_REASONS,
    example: ['pending_too_long'],
    description:
      'pending_too_long, needs_review, submission_unknown (the creation answer never came), refund_requested or refund_unknown (a refund the gateway has not confirmed)',
  })
  reasons!: string[];

  @ApiProperty({ type: AdminOrderResponse })
  order!: AdminOrderResponse;
}

/** GET /v1/admin/orders/stuck. */
export class AdminStuckOrderPage implements StuckPage {
  @ApiProperty({ ...INTEGER, example: 30, description: 'pending_minutes as applied' })
  threshold_minutes!: number;

  @ApiProperty({ type: [AdminStuckOrder], description: 'Oldest first' })
  items!: AdminStuckOrder[];

  @ApiProperty({ ...INTEGER, example: 200 })
  limit!: number;

  @ApiProperty(NEXT_CURSOR)
  next_cursor!: string | null;
}

/** One payment attempt of the order, earlier or current (order-view.ts `toAttemptViews`). */
export class AdminOrderAttempt implements AttemptView {
  @ApiProperty({ ...INTEGER, example: 1 })
  number!: number;

  @ApiProperty({ type: Boolean, example: false, description: "The order row's own attempt" })
  current!: boolean;

  @ApiProperty({ type: String, enum: CHECKOUT_KINDS, example: 'hosted' })
  kind!: CheckoutKind;

  @ApiProperty({
    type: String,
    example: 'ORDER-2041',
    description: 'The id it was sent to the gateway under',
  })
  gateway_reference!: string;

  @ApiProperty({ type: String, nullable: true, example: 'b8a6c3f0-1d2e-4c5b-9a7f-0e1d2c3b4a59' })
  order_tracking_id!: string | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  push_merchant_reference!: string | null;

  @ApiProperty({ type: String, enum: ORDER_STATUSES, example: 'failed' })
  status!: OrderStatus;

  @ApiProperty({ type: String, nullable: true, example: 'request_terminated_by_user' })
  failure_reason!: string | null;

  @ApiProperty({ type: String, nullable: true, example: null })
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

/** One entry of the order's timeline (order-view.ts `toTimelineEntry`). */
export class AdminOrderTimelineEntry implements TimelineEntry {
  @ApiProperty({
    type: String,
    example: 'status_changed',
    description: 'e.g. created, submitted, status_changed, flagged_for_review, refund_requested',
  })
  type!: string;

  @ApiProperty({ type: String, nullable: true, example: 'pending' })
  from_status!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'completed' })
  to_status!: string | null;

  @ApiProperty({ type: String, enum: EVENT_SOURCES, example: 'ipn' })
  source!: EventSource;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: "The admin key's name, or null for the service itself",
  })
  actor!: string | null;

  @ApiProperty({ ...DATE_TIME, example: '2026-01-02T09:31:12.000Z' })
  at!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, example: {} })
  details!: Record<string, unknown>;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    example: null,
    description: 'The raw gateway record that caused the change',
  })
  gateway_record!: Record<string, unknown> | null;
}

/** GET /v1/admin/orders/{reference}, and what a cancel answers. */
export class AdminOrderDetail implements AdminOrderDetailView {
  @ApiProperty({ type: AdminOrderResponse })
  order!: AdminOrderResponse;

  @ApiProperty({ type: [AdminOrderAttempt], description: 'Every payment attempt, first first' })
  attempts!: AdminOrderAttempt[];

  @ApiProperty({ type: [AdminOrderTimelineEntry], description: 'Oldest first' })
  timeline!: AdminOrderTimelineEntry[];
}

/** POST /v1/admin/orders/{reference}/sync: what the lookup did, then the order as it is now. */
export class AdminOrderSyncResult
  extends AdminOrderDetail
  implements Answer<AdminOrdersController['syncNow']>
{
  @ApiProperty({
    type: String,
    enum: SYNC_RESULTS,
    example: 'transitioned',
    description:
      'transitioned (the status moved), unchanged, or flagged (set aside for review: see reason)',
  })
  result!: (typeof SYNC_RESULTS)[number];

  @ApiPropertyOptional({
    type: String,
    example: 'paid amount differs: expected 1500.00 KES, gateway 15.00 KES',
    description: 'Only when result is flagged',
  })
  reason?: string;
}

// ─── IPN registrations and the notification inbox ─────────────────────────────────────────────

type IpnRegistrationView = Answer<AdminOperationsController['ipnRegistrations']>['items'][number];

export class AdminIpnRegistration implements IpnRegistrationView {
  @ApiProperty({
    type: String,
    example: 'https://checkout.shop.example/v1/ipn/[redacted]',
    description: 'The secret path segment is shown as [redacted]',
  })
  url!: string;

  @ApiProperty({
    type: Boolean,
    example: true,
    description: 'The URL and method this deployment registers',
  })
  current!: boolean;

  @ApiProperty({ type: String, enum: ['GET', 'POST'], example: 'POST' })
  method!: 'GET' | 'POST';

  @ApiProperty({ type: String, example: '11111111-2222-4333-8444-555555555555' })
  ipn_id!: string;

  @ApiProperty({ ...NULLABLE_DATE_TIME, example: '2026-01-01T00:00:00.000Z' })
  gateway_created_at!: string | null;

  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:01.000Z' })
  created_at!: string;
}

/** GET /v1/admin/ipn-registrations. */
export class AdminIpnRegistrationList implements Answer<
  AdminOperationsController['ipnRegistrations']
> {
  @ApiProperty({ type: [AdminIpnRegistration], description: 'Oldest first' })
  items!: AdminIpnRegistration[];
}

/** One stored IPN notification (notification-inbox.service.ts `toView`). */
export class AdminNotification implements NotificationView {
  @ApiProperty({ ...UUID, example: '3c9a1e52-7d4b-4f6e-8a2c-5b0d9e1f7a34' })
  id!: string;

  @ApiProperty({ type: String, enum: NOTIFICATION_STATUSES, example: 'applied' })
  status!: NotificationStatus;

  @ApiProperty({ type: String, nullable: true, example: 'b8a6c3f0-1d2e-4c5b-9a7f-0e1d2c3b4a59' })
  order_tracking_id!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'ORDER-2041' })
  merchant_reference!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'IPNCHANGE' })
  notification_type!: string | null;

  @ApiProperty({ type: String, example: 'POST' })
  http_method!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: {
      OrderTrackingId: 'b8a6c3f0-1d2e-4c5b-9a7f-0e1d2c3b4a59',
      OrderMerchantReference: 'ORDER-2041',
      OrderNotificationType: 'IPNCHANGE',
    },
    description: 'The payload as received',
  })
  payload!: Record<string, unknown>;

  @ApiProperty({ type: String, nullable: true, example: '196.201.214.200' })
  remote_address!: string | null;

  @ApiProperty({ ...UUID, nullable: true, example: '6d1f3c2a-8b4e-4f0a-9c7d-2e5b1a0f3c4d' })
  order_id!: string | null;

  @ApiProperty({ ...INTEGER, example: 1 })
  attempts!: number;

  @ApiProperty({ type: String, nullable: true, example: null })
  last_error!: string | null;

  @ApiProperty({ ...DATE_TIME, example: '2026-01-02T09:31:09.000Z' })
  received_at!: string;

  @ApiProperty({ ...NULLABLE_DATE_TIME, example: null })
  next_attempt_at!: string | null;

  @ApiProperty({ ...NULLABLE_DATE_TIME, example: '2026-01-02T09:31:10.000Z' })
  processed_at!: string | null;
}

/** GET /v1/admin/notifications. */
export class AdminNotificationPage implements NotificationPage {
  @ApiProperty({ type: [AdminNotification], description: 'Newest first' })
  items!: AdminNotification[];

  @ApiProperty({ ...INTEGER, example: 50 })
  limit!: number;

  @ApiProperty(NEXT_CURSOR)
  next_cursor!: string | null;
}

/** POST /v1/admin/notifications/{id}/replay: the notification, queued again, and its job. */
export class AdminNotificationReplay
  extends AdminNotification
  implements Answer<NotificationInboxService['replay']>
{
  @ApiProperty({
    type: String,
    example: 'verify-notification:b8a6c3f0-1d2e-4c5b-9a7f-0e1d2c3b4a59:2',
    description: 'The verification job id',
  })
  job!: string;
}

// ─── Dead letters ──────────────────────────────────────────────────────────────────────────────

/** A job whose retries ran out, as the list shows it (dead-letter.service.ts `toView`). */
export class AdminDeadLetter implements DeadJobView {
  @ApiProperty({ type: String, enum: QUEUE_NAMES, example: 'order-sync' })
  queue!: string;

  @ApiProperty({ type: String, example: '42' })
  id!: string;

  @ApiProperty({ type: String, example: 'sync-order' })
  name!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { orderId: '6d1f3c2a-8b4e-4f0a-9c7d-2e5b1a0f3c4d', source: 'poll' },
    description: "The job's data",
  })
  data!: Record<string, unknown>;

  @ApiProperty({ ...INTEGER, example: 8 })
  attempts_made!: number;

  @ApiProperty({ type: String, nullable: true, example: 'gateway unreachable' })
  failed_reason!: string | null;

  @ApiProperty({ ...NULLABLE_DATE_TIME, example: '2026-01-02T09:30:00.000Z' })
  created_at!: string | null;

  @ApiProperty({ ...NULLABLE_DATE_TIME, example: '2026-01-02T09:45:00.000Z' })
  failed_at!: string | null;
}

/** GET /v1/admin/dead-letters. */
export class AdminDeadLetterPage implements Answer<DeadLetterService['list']> {
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    example: { notifications: 0, 'order-sync': 1, 'ipn-registration': 0, reconciliation: 0 },
    description: 'Failed jobs per queue (the queue asked, or every queue)',
  })
  counts!: Record<string, number>;

  @ApiProperty({ type: [AdminDeadLetter], description: 'Most recently failed first' })
  items!: AdminDeadLetter[];
}

/** GET /v1/admin/dead-letters/{queue}/{jobId}: the job with its stack traces and state. */
export class AdminDeadLetterDetail
  extends AdminDeadLetter
  implements Answer<DeadLetterService['inspect']>
{
  @ApiProperty({
    type: [String],
    example: ['Error: gateway unreachable\n    at OrderSyncJob.run (order-sync.job.ts:41:11)'],
    description: 'One per failed attempt',
  })
  stacktrace!: string[];

  @ApiProperty({ type: String, enum: JOB_STATES, example: 'failed' })
  state!: string;
}

/** POST /v1/admin/dead-letters/{queue}/{jobId}/replay. */
export class AdminDeadLetterReplay implements Answer<DeadLetterService['replay']> {
  @ApiProperty({ type: String, enum: QUEUE_NAMES, example: 'order-sync' })
  queue!: string;

  @ApiProperty({ type: String, example: '42' })
  id!: string;

  @ApiProperty({
    type: String,
    enum: JOB_STATES,
    example: 'waiting',
    description: 'The state after the retry',
  })
  state!: string;
}

// ─── Reconciliation ────────────────────────────────────────────────────────────────────────────

type MismatchSide<K extends 'ours' | 'gateway'> = GatewayMismatch[K];

/** Our side of a gateway comparison. */
export class AdminGatewayMismatchOurs implements MismatchSide<'ours'> {
  @ApiProperty({ type: String, enum: ORDER_STATUSES, example: 'completed' })
  status!: OrderStatus;

  @ApiProperty({ type: String, example: '1500.00' })
  amount!: string;

  @ApiProperty({ type: String, example: 'KES' })
  currency!: string;

  @ApiProperty({ type: String, nullable: true, example: '15.00' })
  paid_amount!: string | null;

  @ApiProperty({ type: String, nullable: true, example: '7840512343596574603009' })
  confirmation_code!: string | null;
}

/** The gateway's side of a comparison, from its transaction lookup. */
export class AdminGatewayMismatchGateway implements MismatchSide<'gateway'> {
  @ApiProperty({ type: Boolean, example: true, description: 'Whether the gateway knows the order' })
  found!: boolean;

  @ApiProperty({
    ...INTEGER,
    nullable: true,
    example: 1,
    description: '0 pending/invalid, 1 completed, 2 failed, 3 reversed',
  })
  status_code!: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    enum: [...PAYMENT_OUTCOMES, null],
    example: 'completed',
  })
  outcome!: PaymentOutcome | null;

  @ApiProperty({ type: String, nullable: true, example: '1500.00' })
  amount!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'KES' })
  currency!: string | null;

  @ApiProperty({ type: String, nullable: true, example: '7840512343596574603009' })
  confirmation_code!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'Visa' })
  payment_method!: string | null;
}

/** An order (or an earlier attempt) on which we and the gateway disagree. */
export class AdminGatewayMismatch implements GatewayMismatch {
  @ApiProperty({ type: String, example: 'ORDER-2041' })
  reference!: string;

  @ApiProperty({ type: String, nullable: true, example: 'b8a6c3f0-1d2e-4c5b-9a7f-0e1d2c3b4a59' })
  order_tracking_id!: string | null;

  @ApiProperty({
    type: String,
    example: 'paid amount: ours 15.00, gateway 1500.00',
    description: "Prefixed 'attempt <n>: ' for an earlier attempt",
  })
  problem!: string;

  @ApiProperty({ type: AdminGatewayMismatchOurs })
  ours!: AdminGatewayMismatchOurs;

  @ApiProperty({ type: AdminGatewayMismatchGateway })
  gateway!: AdminGatewayMismatchGateway;
}

type Violation<K extends keyof InvariantViolations> = InvariantViolations[K][number];

export class AdminCompletedTwice implements Violation<'completed_twice'> {
  @ApiProperty({ ...UUID, example: '6d1f3c2a-8b4e-4f0a-9c7d-2e5b1a0f3c4d' })
  order_id!: string;

  @ApiProperty({ type: String, example: 'ORDER-2041' })
  reference!: string;

  @ApiProperty({ ...INTEGER, example: 2, description: 'status_changed → completed events' })
  events!: number;
}

export class AdminRefundExceedsPayment implements Violation<'refund_exceeds_payment'> {
  @ApiProperty({ ...UUID, example: '0f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a' })
  refund_id!: string;

  @ApiProperty({ type: String, example: 'ORDER-2041' })
  reference!: string;

  @ApiProperty({ type: String, example: '1600.00' })
  refund_amount!: string;

  @ApiProperty({ type: String, example: 'KES' })
  refund_currency!: string;

  @ApiProperty({ type: String, nullable: true, example: '1500.00' })
  paid_amount!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'KES' })
  paid_currency!: string | null;
}

export class AdminStateWithoutEvent implements Violation<'state_without_event'> {
  @ApiProperty({ ...UUID, example: '6d1f3c2a-8b4e-4f0a-9c7d-2e5b1a0f3c4d' })
  order_id!: string;

  @ApiProperty({ type: String, example: 'ORDER-2041' })
  reference!: string;

  @ApiProperty({ type: String, enum: ORDER_STATUSES, example: 'cancelled' })
  status!: string;
}

export class AdminChangeWithoutOutbox implements Violation<'change_without_outbox'> {
  @ApiProperty({ ...UUID, example: '6d1f3c2a-8b4e-4f0a-9c7d-2e5b1a0f3c4d' })
  order_id!: string;

  @ApiProperty({ type: String, example: 'ORDER-2041' })
  reference!: string;

  @ApiProperty({
    type: String,
    example: 'order.completed',
    description:
      'The merchant event never written (order.<status>, order.attempt_cancelled, refund.<status>)',
  })
  expected_event!: string;
}

/** What the invariant queries found, up to 100 examples each. */
export class AdminInvariantViolations implements InvariantViolations {
  @ApiProperty({
    type: [AdminCompletedTwice],
    description: 'More than one status_changed → completed event for one order',
  })
  completed_twice!: AdminCompletedTwice[];

  @ApiProperty({
    type: [AdminRefundExceedsPayment],
    description: 'A refund (not rejected) larger than the payment, or in another currency',
  })
  refund_exceeds_payment!: AdminRefundExceedsPayment[];

  @ApiProperty({
    type: [AdminStateWithoutEvent],
    description: 'An order in a state no status_changed event leads to',
  })
  state_without_event!: AdminStateWithoutEvent[];

  @ApiProperty({
    type: [AdminChangeWithoutOutbox],
    description: 'A status change or refund outcome whose merchant event was never written',
  })
  change_without_outbox!: AdminChangeWithoutOutbox[];
}

export class AdminLookupFailure implements LookupFailure {
  @ApiProperty({
    type: String,
    example: 'ORDER-2041 (attempt 1)',
    description: "The order's reference, with the attempt for an earlier one",
  })
  reference!: string;

  @ApiProperty({ type: String, example: 'the payment gateway did not answer within 10000 ms' })
  error!: string;
}

type LookupFailure = ReconciliationReport['lookup_failures'][number];

/** One reconciliation run (reconciliation.service.ts `toReport`): it reports, never repairs. */
export class AdminReconciliationReport implements ReconciliationReport {
  @ApiProperty({ ...UUID, example: '9b2c4d6e-8f0a-4b1c-9d3e-5f7a9b1c3d5e' })
  id!: string;

  @ApiProperty({ type: String, enum: ['nightly', 'admin'], example: 'admin' })
  trigger!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'ops-team',
    description: "The admin key's name for an on-demand run; null for the nightly one",
  })
  requested_by!: string | null;

  @ApiProperty({ ...INTEGER, example: 48 })
  since_hours!: number;

  @ApiProperty({ ...DATE_TIME, example: '2026-01-03T02:30:00.000Z' })
  started_at!: string;

  @ApiProperty({ ...DATE_TIME, example: '2026-01-03T02:30:41.000Z' })
  finished_at!: string;

  @ApiProperty({ ...INTEGER, example: 312 })
  orders_checked!: number;

  @ApiProperty({
    ...INTEGER,
    example: 2,
    description: 'Gateway mismatches plus invariant violations',
  })
  mismatch_count!: number;

  @ApiProperty({
    type: Boolean,
    example: false,
    description: 'The run stopped at its bound of 1000 orders',
  })
  truncated!: boolean;

  @ApiProperty({ type: [AdminGatewayMismatch] })
  gateway_mismatches!: AdminGatewayMismatch[];

  @ApiProperty({ type: AdminInvariantViolations })
  invariant_violations!: AdminInvariantViolations;

  @ApiProperty({ type: [AdminLookupFailure], description: 'Lookups that failed (not compared)' })
  lookup_failures!: AdminLookupFailure[];
}

/** GET /v1/admin/reconciliation-reports. */
export class AdminReconciliationReportList implements Answer<AdminOperationsController['reports']> {
  @ApiProperty({ type: [AdminReconciliationReport], description: 'The latest 20, newest first' })
  items!: AdminReconciliationReport[];
}
