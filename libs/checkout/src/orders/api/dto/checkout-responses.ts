import { ApiExtraModels, ApiProperty } from '@nestjs/swagger';
import {
  AMOUNT,
  ATTEMPT_REFUND_STATUSES,
  CURRENCY,
  DATE_TIME,
  MERCHANT_REFERENCE,
  NULLABLE_DATE_TIME,
  ORDER_TRACKING_ID,
  objectOrNull,
  text,
  URL,
  UUID,
} from '../../../http/documented-schemas';
import { CONFIRMATION_CODE_MAX_LENGTH, ORDER_STATUSES, REFUND_STATUSES } from '@app/domain';
import {
  ATTEMPT_NUMBER,
  ATTEMPTS_PER_ORDER_LIMIT,
  CHECKOUT_KINDS,
  TIMELINE_LIMIT,
} from '../../order-view';
import {
  REFUND_MESSAGE_MAX_LENGTH,
  REFUND_REASON_MAX_LENGTH,
  REVIEW_REASON_MAX_LENGTH,
} from '../../order-view';
// The orders routes' name of an order, kept beside the order view for the admin's and refunds' routes.
export { ORDER_NAME } from '../../order-view';
import { TimelineEntryResponse } from '../../timeline-entry-response';

/**
 * Documentation of the answers (the JSON is built by checkout-answers.ts and order-view.ts). Each
 * string's bound is its column's length (libs/persistence entities) or where it is cut or checked.
 */

/**
 * The status_token (StatusTokens.issue in live/status-tokens.ts): `pst_` and the base64url of an
 * HMAC-SHA256 (32 bytes: 43 characters), 47 characters in all. No example: a value of this shape
 * is a credential wherever it appears, and published ones get copied.
 */
export const STATUS_TOKEN = {
  type: String,
  pattern: '^pst_[A-Za-z0-9_-]{43}$',
  minLength: 47,
  maxLength: 47,
} as const;
const STATUS_TOKEN_DOC = {
  ...STATUS_TOKEN,
  description:
    "Read-only: the customer's browser follows this order's live status with it (GET /v1/orders/{reference}/stream?status_token=…)",
};
/**
 * The Idempotency-Key header: 1–255 visible ASCII characters (IdempotencyService.checkKey refuses
 * anything else with 400).
 */
export const IDEMPOTENCY_KEY_SCHEMA = {
  type: 'string' as const,
  minLength: 1,
  maxLength: 255,
  pattern: '^[\\x21-\\x7e]+$',
  example: 'checkout-7f3a9c',
};
const ORDER_STATUS_DOC = { type: String, example: 'pending', enum: ORDER_STATUSES };
/** orders / payment_attempts .push_merchant_reference: varchar(100). */
const PUSH_MERCHANT_REFERENCE = text(100, { nullable: true });
/** orders / payment_attempts .failure_reason: varchar(100), cut there by its writers. */
const FAILURE_REASON = text(100, { nullable: true });

/** What a hosted checkout (or a new hosted attempt) answers: the page to send the customer to. */
export class HostedCheckoutResponse {
  @ApiProperty(MERCHANT_REFERENCE) reference!: string;
  @ApiProperty({ ...ATTEMPT_NUMBER, description: 'The payment attempt this answer starts' })
  attempt!: number;
  @ApiProperty({
    ...ORDER_TRACKING_ID,
    nullable: true,
    description: "The gateway's id of the order; null only while its outcome is unknown",
  })
  order_tracking_id!: string | null;
  @ApiProperty(ORDER_STATUS_DOC) status!: string;
  @ApiProperty({
    ...URL,
    nullable: true,
    example:
      'https://pay.example/pesapaliframe/PesapalIframe3/Index?OrderTrackingId=b8a6c3f0-1d2e-4c5b-9a7f-0e1d2c3b4a59',
    description: 'Send the customer here to pay',
  })
  redirect_url!: string | null;
  @ApiProperty(AMOUNT) amount!: string;
  @ApiProperty(CURRENCY) currency!: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-02T09:30:00.000Z' }) created_at!: string;
  @ApiProperty(STATUS_TOKEN_DOC) status_token!: string;
}

/** What a mobile-money checkout (or a new prompt) answers: the prompt went out. */
export class MobileMoneyCheckoutResponse {
  @ApiProperty({ ...MERCHANT_REFERENCE, example: 'ORDER-2042' }) reference!: string;
  @ApiProperty({ ...ATTEMPT_NUMBER, description: 'The payment attempt this answer starts' })
  attempt!: number;
  @ApiProperty({
    ...ORDER_TRACKING_ID,
    nullable: true,
    example: '5e0f1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b',
  })
  order_tracking_id!: string | null;
  @ApiProperty({
    ...PUSH_MERCHANT_REFERENCE,
    example: 'MPESA1A2B3C4D',
    description: "The gateway's own reference for the push",
  })
  push_merchant_reference!: string | null;
  @ApiProperty(ORDER_STATUS_DOC) status!: string;
  @ApiProperty({
    // orders.business_number: varchar(64).
    ...text(64, { nullable: true }),
    example: '220220',
    description: 'Paybill for a manual payment',
  })
  business_number!: string | null;
  @ApiProperty({
    // orders.push_account_number: varchar(100).
    ...text(100, { nullable: true }),
    example: 'ORDER-2042',
    description: 'Account to quote with the paybill',
  })
  account_number!: string | null;
  @ApiProperty({ ...AMOUNT, example: '250.00' }) amount!: string;
  @ApiProperty(CURRENCY) currency!: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-02T09:30:00.000Z' }) created_at!: string;
  @ApiProperty(STATUS_TOKEN_DOC) status_token!: string;
}

/** The refund of an order's payment. */
export class RefundResponse {
  @ApiProperty({ ...UUID, example: '0f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a' }) id!: string;
  @ApiProperty({
    type: String,
    example: 'accepted',
    enum: REFUND_STATUSES,
  })
  status!: string;
  @ApiProperty(AMOUNT) amount!: string;
  @ApiProperty(CURRENCY) currency!: string;
  @ApiProperty({ example: false }) partial!: boolean;
  // refunds.reason: text, written only from the refund request's reason (MaxLength there).
  @ApiProperty(text(REFUND_REASON_MAX_LENGTH, { example: 'Customer returned the goods' }))
  reason!: string;
  // refunds.requested_by: varchar(100).
  @ApiProperty(text(100, { example: 'jane@shop.example' })) requested_by!: string;
  // refunds.gateway_status: varchar(16), cut there.
  @ApiProperty(text(16, { nullable: true, example: '200' })) gateway_status!: string | null;
  @ApiProperty(
    text(REFUND_MESSAGE_MAX_LENGTH, { nullable: true, example: 'Refund request successfully' }),
  )
  gateway_message!: string | null;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-03T08:00:00.000Z' }) created_at!: string;
  @ApiProperty(NULLABLE_DATE_TIME) accepted_at!: string | null;
  @ApiProperty(NULLABLE_DATE_TIME) reversed_at!: string | null;
  @ApiProperty(NULLABLE_DATE_TIME) rejected_at!: string | null;
}

export class AttemptResponse {
  @ApiProperty(ATTEMPT_NUMBER) number!: number;
  @ApiProperty({ description: "The order row's attempt (its ids and payment fields)" })
  current!: boolean;
  @ApiProperty({ type: String, enum: CHECKOUT_KINDS }) kind!: string;
  @ApiProperty({
    // orders / payment_attempts .gateway_reference: varchar(50), as merchant_reference.
    ...MERCHANT_REFERENCE,
    description: 'The id it was sent to the gateway under',
  })
  gateway_reference!: string;
  @ApiProperty({ ...ORDER_TRACKING_ID, nullable: true }) order_tracking_id!: string | null;
  @ApiProperty({ ...PUSH_MERCHANT_REFERENCE, example: null }) push_merchant_reference!:
    string | null;
  @ApiProperty({ ...ORDER_STATUS_DOC, example: 'failed' }) status!: string;
  @ApiProperty({ ...FAILURE_REASON, example: null }) failure_reason!: string | null;
  @ApiProperty(text(CONFIRMATION_CODE_MAX_LENGTH, { nullable: true, example: null }))
  confirmation_code!: string | null;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-02T09:30:00.000Z' }) started_at!: string;
  @ApiProperty({ ...NULLABLE_DATE_TIME, example: null }) replaced_at!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    enum: [...ATTEMPT_REFUND_STATUSES, null],
    description: "A double payment's refund: requested, accepted, rejected or unknown",
  })
  refund_status!: string | null;
}

@ApiExtraModels(RefundResponse)
export class OrderResponse {
  @ApiProperty(MERCHANT_REFERENCE) reference!: string;
  @ApiProperty({
    ...ATTEMPT_NUMBER,
    description: "The payment attempt the order's payment fields describe",
  })
  attempt!: number;
  @ApiProperty({
    type: [AttemptResponse],
    maxItems: ATTEMPTS_PER_ORDER_LIMIT,
    description: 'Every payment attempt, first first',
  })
  attempts!: AttemptResponse[];
  @ApiProperty({ ...ORDER_TRACKING_ID, nullable: true }) order_tracking_id!: string | null;
  @ApiProperty({ ...PUSH_MERCHANT_REFERENCE, example: null }) push_merchant_reference!:
    string | null;
  @ApiProperty({ type: String, example: 'hosted', enum: CHECKOUT_KINDS }) kind!: string;
  @ApiProperty({ ...ORDER_STATUS_DOC, example: 'completed' }) status!: string;
  @ApiProperty(AMOUNT) amount!: string;
  @ApiProperty(CURRENCY) currency!: string;
  // orders.description: varchar(100) (the checkout's Length(1, 100)).
  @ApiProperty(text(100, { example: 'Two bags of coffee' })) description!: string;
  @ApiProperty(
    text(CONFIRMATION_CODE_MAX_LENGTH, { example: '7840512343596574603009', nullable: true }),
  )
  confirmation_code!: string | null;
  // orders.payment_method: varchar(64).
  @ApiProperty(text(64, { example: 'Visa', nullable: true })) payment_method!: string | null;
  // orders.payment_account: varchar(64); masking keeps its length.
  @ApiProperty(text(64, { example: '444444xxxxxx4444', nullable: true }))
  payment_account!: string | null;
  @ApiProperty({ ...AMOUNT, nullable: true }) paid_amount!: string | null;
  // orders.paid_currency: varchar(3), as the gateway reported it (upper-cased).
  @ApiProperty(text(3, { example: 'KES', nullable: true })) paid_currency!: string | null;
  @ApiProperty({ ...NULLABLE_DATE_TIME, example: '2026-01-02T09:31:10.000Z' })
  paid_at!: string | null;
  @ApiProperty({ ...FAILURE_REASON, example: null }) failure_reason!: string | null;
  @ApiProperty({ example: false }) needs_review!: boolean;
  // orders.review_reason: text, cut where it is written (OrderJournal.flagForReview).
  @ApiProperty(text(REVIEW_REASON_MAX_LENGTH, { nullable: true, example: null }))
  review_reason!: string | null;
  @ApiProperty({ ...URL, nullable: true, example: null }) redirect_url!: string | null;
  // orders.business_number: varchar(64).
  @ApiProperty(text(64, { nullable: true, example: null })) business_number!: string | null;
  // orders.push_account_number: varchar(100).
  @ApiProperty(text(100, { nullable: true, example: null })) account_number!: string | null;
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
  @ApiProperty({ ...DATE_TIME, example: '2026-01-02T09:30:00.000Z' }) created_at!: string;
  @ApiProperty({ ...DATE_TIME, example: '2026-01-02T09:31:12.000Z' }) updated_at!: string;
  @ApiProperty({ ...objectOrNull(RefundResponse), description: "The order's refund, if any" })
  refund!: RefundResponse | null;
  @ApiProperty({
    type: [TimelineEntryResponse],
    maxItems: TIMELINE_LIMIT,
    description: `The latest ${TIMELINE_LIMIT} timeline entries at most, oldest first`,
  })
  timeline!: TimelineEntryResponse[];
}

export class ErrorResponse {
  @ApiProperty({
    example: {
      code: 'validation_failed',
      message: 'amount: must be a positive amount with at most 2 decimals',
      errors: [{ field: 'amount', reason: 'must be a positive amount with at most 2 decimals' }],
    },
  })
  error!: { code: string; message: string; [detail: string]: unknown };
}
