import { ApiProperty } from '@nestjs/swagger';
import {
  CONFIRMATION_CODE_MAX_LENGTH,
  MERCHANT_EVENT_TYPES,
  MERCHANT_REFERENCE_MAX_LENGTH,
  ORDER_STATUSES,
  OrderStatus,
  PaymentOutcome,
} from '@app/domain';
import {
  AMOUNT,
  CURRENCY,
  DATE_TIME,
  INTEGER,
  MERCHANT_REFERENCE,
  ORDER_TRACKING_ID,
  text,
  UUID,
} from '../../http/documented-schemas';
import { ATTEMPTS_PER_ORDER_LIMIT } from '../../orders/order-view';
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
import { SINCE_HOURS_MAX } from './admin.dto';
import { Answer, membersOf, ACTOR_LENGTH } from './admin-response-schemas';

/**
 * Documentation of the admin answers (OpenAPI only: the JSON is built by the views and services
 * each class names). Each class implements the type it documents, so a field added there without
 * its documentation fails the type check.
 */

const PAYMENT_OUTCOMES = membersOf<PaymentOutcome>({
  pending: true,
  completed: true,
  failed: true,
  reversed: true,
});

/** A lookup failure's reference: the order's, with ` (attempt <n>)` for an earlier attempt. */
const LOOKUP_REFERENCE_MAX_LENGTH =
  MERCHANT_REFERENCE_MAX_LENGTH + ` (attempt ${ATTEMPTS_PER_ORDER_LIMIT})`.length;

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
    text(CONFIRMATION_CODE_MAX_LENGTH, { nullable: true, example: '7840512343596574603009' }),
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
