import { ApiExtraModels, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { JobState } from 'bullmq';
import {
  MERCHANT_EVENT_TYPES,
  MERCHANT_REFERENCE_MAX_LENGTH,
  ORDER_STATUSES,
  OrderStatus,
  PaymentOutcome,
} from '@app/domain';
import {
  AttemptRefundStatus,
  CheckoutKind,
  EventSource,
  NotificationStatus,
  SubmissionStatus,
} from '@app/persistence';
import { JobName, QUEUE_NAMES } from '@app/queues';
import {
  AMOUNT,
  ATTEMPT_REFUND_STATUSES,
  CURRENCY,
  DATE_TIME,
  EVENT_SOURCES,
  INTEGER,
  MERCHANT_REFERENCE,
  NEXT_CURSOR,
  NULLABLE_DATE_TIME,
  objectOrNull,
  ORDER_TRACKING_ID,
  text,
  URL,
  URL_MAX_LENGTH,
  UUID,
} from '../../http/documented-schemas';
import { PAGE_LIMIT_MAX } from '../../http/page-query';
import { NOTIFICATION_LAST_ERROR_MAX_LENGTH } from '../../ipn/inbox-limits';
import { IPN_REGISTRATIONS_LISTED } from '../../orders/ipn-registration.service';
import type { OutcomeResult } from '../../orders/order-outcome.service';
import { REVIEW_REASON_MAX_LENGTH } from '../../orders/order-view';
import {
  ATTEMPT_NUMBER,
  ATTEMPTS_PER_ORDER_LIMIT,
  CHECKOUT_KINDS,
  TIMELINE_LIMIT,
  type AttemptView,
  type TimelineEntry,
} from '../../orders/order-view';
import { AdminRefundResponse } from '../../refunds/refund-admin-view';
import {
  GATEWAY_TEXT_MAX_LENGTH,
  type GatewayMismatch,
  MISMATCH_PROBLEM_MAX_LENGTH,
} from '../gateway-comparison';
import {
  CURRENCY_CODES_MAX,
  LATEST_REPORTS,
  LOOKUP_ERROR_MAX_LENGTH,
  MAX_LOOKUPS,
  MAX_ORDERS,
  RECONCILIATION_TRIGGERS,
  type ReconciliationReport,
  type ReconciliationService,
  type UnmatchedPaymentsOpen,
} from '../reconciliation.service';
import { INVARIANT_EXAMPLES, type InvariantViolations } from '../reconciliation-invariants';
import { NOTIFICATION_STATUSES, PENDING_MINUTES_MAX, SINCE_HOURS_MAX } from './admin.dto';
import type { AdminOrderDetail as AdminOrderDetailView, AdminOrderView } from './admin-order-view';
import { COUNT_CAP, type OrderPage } from './admin-orders.service';
import {
  DEAD_LETTER_REASON_MAX_LENGTH,
  DEAD_LETTER_STACKTRACE_MAX_LENGTH,
  DEAD_LETTER_STACKTRACES_MAX,
  type DeadJobView,
  type DeadLetterService,
  JOB_ID_MAX_LENGTH,
} from './dead-letters/dead-letter.service';
import type {
  NotificationInboxService,
  NotificationPage,
  NotificationView,
} from './notification-inbox.service';
import { STUCK_REASONS, type StuckOrder, type StuckPage } from './stuck-orders.service';

/**
 * Documentation of the admin answers (OpenAPI only: the JSON is built by the views and services
 * each class names). Each class implements the type it documents, so a field added there without
 * its documentation fails the type check.
 */

type Answer<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;

/**
 * The members of a union that has no list of its own, as a list: the record makes the compiler
 * check that it names every member and nothing else.
 */
function membersOf<T extends string>(members: Record<T, true>): T[] {
  return Object.keys(members) as T[];
}

const SUBMISSION_STATUSES = membersOf<SubmissionStatus>({
  submitting: true,
  submitted: true,
  rejected: true,
  unknown: true,
});
const PAYMENT_OUTCOMES = membersOf<PaymentOutcome>({
  pending: true,
  completed: true,
  failed: true,
  reversed: true,
});
/** OrderOutcomeService's result kinds (order-outcome.service.ts `OutcomeResult`). */
const SYNC_RESULTS = membersOf<OutcomeResult['kind']>({
  transitioned: true,
  unchanged: true,
  flagged: true,
  order_missing: true,
});
/** BullMQ's job states, and 'unknown' for a job it no longer finds (Job.getState). */
const JOB_STATES = membersOf<JobState | 'unknown'>({
  completed: true,
  failed: true,
  active: true,
  delayed: true,
  prioritized: true,
  waiting: true,
  'waiting-children': true,
  unknown: true,
});
/** Every job's name (job-catalogue.ts `JobData`). */
const JOB_NAMES = membersOf<JobName>({
  'verify-notification': true,
  'sync-order': true,
  'follow-refund': true,
  'refund-double-payment': true,
  'register-ipn': true,
  reconcile: true,
  'prune-operational-records': true,
  'sum-activity': true,
});

/** A page's `limit` as applied: 1 to PAGE_LIMIT_MAX (LimitQuery). */
const PAGE_LIMIT = { ...INTEGER, minimum: 1, maximum: PAGE_LIMIT_MAX } as const;
/** orders / payment_attempts .push_merchant_reference: varchar(100). */
const PUSH_MERCHANT_REFERENCE_LENGTH = 100;
/** orders / payment_attempts .failure_reason: varchar(100), cut there by its writers. */
const FAILURE_REASON_LENGTH = 100;
/** orders / payment_attempts / refunds .confirmation_code: varchar(100). */
const CONFIRMATION_CODE_LENGTH = 100;
/** order_events.actor, reconciliation_reports.requested_by: an admin key's name, varchar(100). */
const ACTOR_LENGTH = 100;
/** An order status a timeline entry moved from or to (order_events.from_status / to_status). */
const TIMELINE_STATUS = {
  type: String,
  nullable: true,
  // null is listed too: a validator applies enum to a nullable value as well (OpenAPI 3.0.3).
  enum: [...ORDER_STATUSES, null],
};
/** A lookup failure's reference: the order's, with ` (attempt <n>)` for an earlier attempt. */
const LOOKUP_REFERENCE_MAX_LENGTH =
  MERCHANT_REFERENCE_MAX_LENGTH + ` (attempt ${ATTEMPTS_PER_ORDER_LIMIT})`.length;

// ─── Orders ────────────────────────────────────────────────────────────────────────────────────

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
    text(CONFIRMATION_CODE_LENGTH, { nullable: true, example: '7840512343596574603009' }),
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

  @ApiProperty(text(FAILURE_REASON_LENGTH, { nullable: true, example: null }))
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
export class AdminOrderPage implements OrderPage {
  @ApiProperty({
    type: [AdminOrderResponse],
    maxItems: PAGE_LIMIT_MAX,
    description: 'Newest first',
  })
  items!: AdminOrderResponse[];

  @ApiProperty({ ...PAGE_LIMIT, example: 50 })
  limit!: number;

  @ApiProperty(NEXT_CURSOR)
  next_cursor!: string | null;

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
    text(FAILURE_REASON_LENGTH, { nullable: true, example: 'request_terminated_by_user' }),
  )
  failure_reason!: string | null;

  @ApiProperty(text(CONFIRMATION_CODE_LENGTH, { nullable: true, example: null }))
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
    // order_events.type: varchar(48); the journal's writers name it (no closed list of them).
    ...text(48),
    example: 'status_changed',
    description: 'e.g. created, submitted, status_changed, flagged_for_review, refund_requested',
  })
  type!: string;

  @ApiProperty({ ...TIMELINE_STATUS, example: 'pending' })
  from_status!: string | null;

  @ApiProperty({ ...TIMELINE_STATUS, example: 'completed' })
  to_status!: string | null;

  @ApiProperty({ type: String, enum: EVENT_SOURCES, example: 'ipn' })
  source!: EventSource;

  @ApiProperty({
    ...text(ACTOR_LENGTH, { nullable: true }),
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

// ─── IPN registrations and the notification inbox ─────────────────────────────────────────────

/** An IPN registration as AdminOperationsController.ipnRegistrations lists it. */
export interface IpnRegistrationView {
  url: string;
  current: boolean;
  account: string;
  method: 'GET' | 'POST';
  ipn_id: string;
  gateway_created_at: string | null;
  created_at: string;
}

/** What AdminOperationsController.ipnRegistrations answers. */
export interface IpnRegistrationListAnswer {
  items: IpnRegistrationView[];
}

export class AdminIpnRegistration implements IpnRegistrationView {
  @ApiProperty({
    // ipn_registrations.url (text): the deployment's URL, shown cut to URL_MAX_LENGTH. Not
    // format uri: "[redacted]" is not a URI's path.
    ...text(URL_MAX_LENGTH),
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

  // ipn_registrations.gateway_account: varchar(20).
  @ApiProperty({ ...text(20), example: 'default', description: 'The merchant account it is for' })
  account!: string;

  @ApiProperty({ type: String, enum: ['GET', 'POST'], example: 'POST' })
  method!: 'GET' | 'POST';

  // ipn_registrations.ipn_id: varchar(64).
  @ApiProperty(text(64, { example: '11111111-2222-4333-8444-555555555555' }))
  ipn_id!: string;

  @ApiProperty({ ...NULLABLE_DATE_TIME, example: '2026-01-01T00:00:00.000Z' })
  gateway_created_at!: string | null;

  @ApiProperty({ ...DATE_TIME, example: '2026-01-01T00:00:01.000Z' })
  created_at!: string;
}

/** GET /v1/admin/ipn-registrations. */
export class AdminIpnRegistrationList implements IpnRegistrationListAnswer {
  @ApiProperty({
    type: [AdminIpnRegistration],
    maxItems: IPN_REGISTRATIONS_LISTED,
    description: `The latest ${IPN_REGISTRATIONS_LISTED}, oldest first`,
  })
  items!: AdminIpnRegistration[];
}

/** One stored IPN notification (notification-inbox.service.ts `toView`). */
export class AdminNotification implements NotificationView {
  @ApiProperty({ ...UUID, example: '3c9a1e52-7d4b-4f6e-8a2c-5b0d9e1f7a34' })
  id!: string;

  @ApiProperty({ type: String, enum: NOTIFICATION_STATUSES, example: 'applied' })
  status!: NotificationStatus;

  // ipn_notifications.order_tracking_id: varchar(100), as received (cut by the inbox).
  @ApiProperty(text(100, { nullable: true, example: 'b8a6c3f0-1d2e-4c5b-9a7f-0e1d2c3b4a59' }))
  order_tracking_id!: string | null;

  // ipn_notifications.merchant_reference: varchar(150), as received (cut by the inbox).
  @ApiProperty(text(150, { nullable: true, example: 'ORDER-2041' }))
  merchant_reference!: string | null;

  // ipn_notifications.notification_type: varchar(32), as received (cut by the inbox).
  @ApiProperty(text(32, { nullable: true, example: 'IPNCHANGE' }))
  notification_type!: string | null;

  // ipn_notifications.http_method: varchar(8).
  @ApiProperty(text(8, { example: 'POST' }))
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

  // ipn_notifications.remote_address: varchar(64).
  @ApiProperty(text(64, { nullable: true, example: '196.201.214.200' }))
  remote_address!: string | null;

  @ApiProperty({ ...UUID, nullable: true, example: '6d1f3c2a-8b4e-4f0a-9c7d-2e5b1a0f3c4d' })
  order_id!: string | null;

  @ApiProperty({ ...INTEGER, example: 1 })
  attempts!: number;

  // ipn_notifications.last_error: text, cut by its writers (ipn-inbox.ts).
  @ApiProperty(text(NOTIFICATION_LAST_ERROR_MAX_LENGTH, { nullable: true, example: null }))
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
  @ApiProperty({
    type: [AdminNotification],
    maxItems: PAGE_LIMIT_MAX,
    description: 'Newest first',
  })
  items!: AdminNotification[];

  @ApiProperty({ ...PAGE_LIMIT, example: 50 })
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
    ...text(JOB_ID_MAX_LENGTH),
    example: 'notification-3c9a1e52-7d4b-4f6e-8a2c-5b0d9e1f7a34-2',
    description: 'The verification job id',
  })
  job!: string;
}

// ─── Dead letters ──────────────────────────────────────────────────────────────────────────────

/** A job whose retries ran out, as the list shows it (dead-letter.service.ts `toView`). */
export class AdminDeadLetter implements DeadJobView {
  @ApiProperty({ type: String, enum: QUEUE_NAMES, example: 'order-sync' })
  queue!: string;

  @ApiProperty(text(JOB_ID_MAX_LENGTH, { example: '42' }))
  id!: string;

  @ApiProperty({ type: String, enum: JOB_NAMES, example: 'sync-order' })
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

  // BullMQ keeps the error's whole message: the list cuts it (dead-letter.service.ts).
  @ApiProperty(
    text(DEAD_LETTER_REASON_MAX_LENGTH, { nullable: true, example: 'gateway unreachable' }),
  )
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
    additionalProperties: { ...INTEGER },
    example: { notifications: 0, 'order-sync': 1, 'ipn-registration': 0, reconciliation: 0 },
    description: 'Failed jobs per queue (the queue asked, or every queue)',
  })
  counts!: Record<string, number>;

  @ApiProperty({
    type: [AdminDeadLetter],
    maxItems: PAGE_LIMIT_MAX,
    description: 'Most recently failed first',
  })
  items!: AdminDeadLetter[];
}

/** GET /v1/admin/dead-letters/{queue}/{jobId}: the job with its stack traces and state. */
export class AdminDeadLetterDetail
  extends AdminDeadLetter
  implements Answer<DeadLetterService['inspect']>
{
  @ApiProperty({
    type: [String],
    maxItems: DEAD_LETTER_STACKTRACES_MAX,
    maxLength: DEAD_LETTER_STACKTRACE_MAX_LENGTH,
    example: ['Error: gateway unreachable\n    at OrderSyncJob.run (order-sync.job.ts:41:11)'],
    description: `One per failed attempt, the latest ${DEAD_LETTER_STACKTRACES_MAX} (each cut to ${DEAD_LETTER_STACKTRACE_MAX_LENGTH} characters)`,
  })
  stacktrace!: string[];

  @ApiProperty({ type: String, enum: JOB_STATES, example: 'failed' })
  state!: string;
}

/** POST /v1/admin/dead-letters/{queue}/{jobId}/replay. */
export class AdminDeadLetterReplay implements Answer<DeadLetterService['replay']> {
  @ApiProperty({ type: String, enum: QUEUE_NAMES, example: 'order-sync' })
  queue!: string;

  @ApiProperty(text(JOB_ID_MAX_LENGTH, { example: '42' }))
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

  @ApiProperty(AMOUNT)
  amount!: string;

  @ApiProperty(CURRENCY)
  currency!: string;

  @ApiProperty({ ...AMOUNT, nullable: true, example: '15.00' })
  paid_amount!: string | null;

  @ApiProperty(
    text(CONFIRMATION_CODE_LENGTH, { nullable: true, example: '7840512343596574603009' }),
  )
  confirmation_code!: string | null;
}

/** The gateway's side of a comparison, from its transaction lookup. */
export class AdminGatewayMismatchGateway implements MismatchSide<'gateway'> {
  @ApiProperty({ type: Boolean, example: true, description: 'Whether the gateway knows the order' })
  found!: boolean;

  @ApiProperty({
    // paymentOutcomeFromStatusCode: a lookup with any other status_code is refused as malformed.
    ...INTEGER,
    maximum: 3,
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

  // Money.of: at most 13 digits and two places.
  @ApiProperty({ ...AMOUNT, nullable: true })
  amount!: string | null;

  // The gateway's texts have no stated length: the report keeps them cut (gateway-comparison.ts).
  @ApiProperty(text(GATEWAY_TEXT_MAX_LENGTH, { nullable: true, example: 'KES' }))
  currency!: string | null;

  @ApiProperty(text(GATEWAY_TEXT_MAX_LENGTH, { nullable: true, example: '7840512343596574603009' }))
  confirmation_code!: string | null;

  @ApiProperty(text(GATEWAY_TEXT_MAX_LENGTH, { nullable: true, example: 'Visa' }))
  payment_method!: string | null;
}

/** An order (or an earlier attempt) on which we and the gateway disagree. */
export class AdminGatewayMismatch implements GatewayMismatch {
  @ApiProperty(MERCHANT_REFERENCE)
  reference!: string;

  @ApiProperty({ ...ORDER_TRACKING_ID, nullable: true })
  order_tracking_id!: string | null;

  @ApiProperty({
    // It quotes the gateway's values: cut where it is written (gateway-comparison.ts).
    ...text(MISMATCH_PROBLEM_MAX_LENGTH),
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

  @ApiProperty(MERCHANT_REFERENCE)
  reference!: string;

  @ApiProperty({
    ...INTEGER,
    minimum: 2,
    example: 2,
    description: 'status_changed → completed events',
  })
  events!: number;
}

export class AdminRefundExceedsPayment implements Violation<'refund_exceeds_payment'> {
  @ApiProperty({ ...UUID, example: '0f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a' })
  refund_id!: string;

  @ApiProperty(MERCHANT_REFERENCE)
  reference!: string;

  @ApiProperty({ ...AMOUNT, example: '1600.00' })
  refund_amount!: string;

  // refunds.currency: varchar(3).
  @ApiProperty(text(3, { example: 'KES' }))
  refund_currency!: string;

  @ApiProperty({ ...AMOUNT, nullable: true })
  paid_amount!: string | null;

  // orders.paid_currency: varchar(3).
  @ApiProperty(text(3, { nullable: true, example: 'KES' }))
  paid_currency!: string | null;
}

export class AdminStateWithoutEvent implements Violation<'state_without_event'> {
  @ApiProperty({ ...UUID, example: '6d1f3c2a-8b4e-4f0a-9c7d-2e5b1a0f3c4d' })
  order_id!: string;

  @ApiProperty(MERCHANT_REFERENCE)
  reference!: string;

  @ApiProperty({ type: String, enum: ORDER_STATUSES, example: 'cancelled' })
  status!: string;
}

export class AdminChangeWithoutOutbox implements Violation<'change_without_outbox'> {
  @ApiProperty({ ...UUID, example: '6d1f3c2a-8b4e-4f0a-9c7d-2e5b1a0f3c4d' })
  order_id!: string;

  @ApiProperty(MERCHANT_REFERENCE)
  reference!: string;

  @ApiProperty({
    type: String,
    enum: MERCHANT_EVENT_TYPES,
    example: 'order.completed',
    description:
      'The merchant event never written (order.<status>, order.attempt_cancelled, refund.<status>)',
  })
  expected_event!: string;
}

/**
 * What the invariant queries found, up to INVARIANT_EXAMPLES examples each (change_without_outbox
 * lists those of two queries: status changes, then refund outcomes).
 */
export class AdminInvariantViolations implements InvariantViolations {
  @ApiProperty({
    type: [AdminCompletedTwice],
    maxItems: INVARIANT_EXAMPLES,
    description: 'More than one status_changed → completed event for one order',
  })
  completed_twice!: AdminCompletedTwice[];

  @ApiProperty({
    type: [AdminRefundExceedsPayment],
    maxItems: INVARIANT_EXAMPLES,
    description: 'A refund (not rejected) larger than the payment, or in another currency',
  })
  refund_exceeds_payment!: AdminRefundExceedsPayment[];

  @ApiProperty({
    type: [AdminStateWithoutEvent],
    maxItems: INVARIANT_EXAMPLES,
    description: 'An order in a state no status_changed event leads to',
  })
  state_without_event!: AdminStateWithoutEvent[];

  @ApiProperty({
    type: [AdminChangeWithoutOutbox],
    maxItems: 2 * INVARIANT_EXAMPLES,
    description: `A status change or refund outcome whose merchant event was never written (up to ${INVARIANT_EXAMPLES} of each)`,
  })
  change_without_outbox!: AdminChangeWithoutOutbox[];
}

export class AdminLookupFailure implements LookupFailure {
  @ApiProperty({
    ...text(LOOKUP_REFERENCE_MAX_LENGTH),
    example: 'ORDER-2041 (attempt 1)',
    description: "The order's reference, with the attempt for an earlier one",
  })
  reference!: string;

  // The error's message, cut where the report is built (reconciliation.service.ts).
  @ApiProperty(
    text(LOOKUP_ERROR_MAX_LENGTH, {
      example: 'the payment gateway did not answer within 10000 ms',
    }),
  )
  error!: string;
}

type LookupFailure = ReconciliationReport['lookup_failures'][number];

type UnmatchedCurrency = UnmatchedPaymentsOpen['by_currency'][number];

export class AdminUnmatchedCurrency implements UnmatchedCurrency {
  @ApiProperty(CURRENCY)
  currency!: string;

  @ApiProperty({ ...INTEGER, minimum: 1, example: 2 })
  count!: number;

  // A sum of numeric(15,2) amounts may pass 13 digits.
  @ApiProperty({
    type: String,
    pattern: '^[0-9]+\\.[0-9]{2}$',
    maxLength: 32,
    example: '3000.00',
    description: 'Their amounts added up (decimal string)',
  })
  amount!: string;
}

export class AdminUnmatchedPaymentsOpen implements UnmatchedPaymentsOpen {
  @ApiProperty({ ...INTEGER, example: 2 })
  open!: number;

  @ApiProperty({ type: [AdminUnmatchedCurrency], maxItems: CURRENCY_CODES_MAX })
  by_currency!: AdminUnmatchedCurrency[];
}

/** One reconciliation run (reconciliation.service.ts `toReport`): it reports, never repairs. */
export class AdminReconciliationReport implements ReconciliationReport {
  @ApiProperty({ ...UUID, example: '9b2c4d6e-8f0a-4b1c-9d3e-5f7a9b1c3d5e' })
  id!: string;

  @ApiProperty({ type: String, enum: RECONCILIATION_TRIGGERS, example: 'admin' })
  trigger!: string;

  @ApiProperty({
    ...text(ACTOR_LENGTH, { nullable: true }),
    example: 'ops-team',
    description: "The admin key's name for an on-demand run; null for the nightly one",
  })
  requested_by!: string | null;

  @ApiProperty({ ...INTEGER, minimum: 1, maximum: SINCE_HOURS_MAX, example: 48 })
  since_hours!: number;

  @ApiProperty({ ...DATE_TIME, example: '2026-01-03T02:30:00.000Z' })
  started_at!: string;

  @ApiProperty({ ...DATE_TIME, example: '2026-01-03T02:30:41.000Z' })
  finished_at!: string;

  @ApiProperty({ ...INTEGER, maximum: MAX_ORDERS, example: 312 })
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
    description: `The run stopped at its bound of ${MAX_ORDERS} orders`,
  })
  truncated!: boolean;

  @ApiProperty({
    type: [AdminGatewayMismatch],
    maxItems: MAX_LOOKUPS,
    description: 'At most one per lookup: each order checked and each of its earlier attempts',
  })
  gateway_mismatches!: AdminGatewayMismatch[];

  @ApiProperty({ type: AdminInvariantViolations })
  invariant_violations!: AdminInvariantViolations;

  @ApiProperty({
    type: [AdminLookupFailure],
    maxItems: MAX_LOOKUPS,
    description: 'Lookups that failed (not compared)',
  })
  lookup_failures!: AdminLookupFailure[];

  @ApiProperty({
    type: AdminUnmatchedPaymentsOpen,
    nullable: true,
    description:
      'Payments without an order not settled yet when the run ended (GET /v1/admin/unmatched-payments?status=open); null in reports made before they were reported',
  })
  unmatched_payments!: AdminUnmatchedPaymentsOpen | null;
}

/** What AdminOperationsController.reports answers. */
type ReconciliationReportListAnswer = { items: Answer<ReconciliationService['latest']> };

/** GET /v1/admin/reconciliation-reports. */
export class AdminReconciliationReportList implements ReconciliationReportListAnswer {
  @ApiProperty({
    type: [AdminReconciliationReport],
    maxItems: LATEST_REPORTS,
    description: `The latest ${LATEST_REPORTS}, newest first`,
  })
  items!: AdminReconciliationReport[];
}
