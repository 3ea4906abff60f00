import { ApiExtraModels, ApiProperty } from '@nestjs/swagger';
import {
  ATTEMPT_REFUND_STATUSES,
  EVENT_SOURCES,
  objectOrNull,
} from '../../../http/documented-schemas';
import { ORDER_STATUSES, REFUND_STATUSES } from '@app/domain';

/** Documentation of the answers (the JSON is built by checkout-answers.ts and order-view.ts). */
const STATUS_TOKEN_DOC = {
  example: 'pst_…',
  description:
    "Read-only: the customer's browser follows this order's live status with it (GET /v1/orders/{reference}/stream?status_token=…)",
};
const ORDER_STATUS_DOC = { example: 'pending', enum: ORDER_STATUSES };

/** What a hosted checkout (or a new hosted attempt) answers: the page to send the customer to. */
export class HostedCheckoutResponse {
  @ApiProperty({ example: 'ORDER-2041' }) reference!: string;
  @ApiProperty({ example: 1, description: 'The payment attempt this answer starts' })
  attempt!: number;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'b8a6c3f0-1d2e-4c5b-9a7f-0e1d2c3b4a59',
    description: "The gateway's id of the order; null only while its outcome is unknown",
  })
  order_tracking_id!: string | null;
  @ApiProperty(ORDER_STATUS_DOC) status!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example:
      'https://pay.example/pesapaliframe/PesapalIframe3/Index?OrderTrackingId=b8a6c3f0-1d2e-4c5b-9a7f-0e1d2c3b4a59',
    description: 'Send the customer here to pay',
  })
  redirect_url!: string | null;
  @ApiProperty({ example: '1500.00' }) amount!: string;
  @ApiProperty({ example: 'KES' }) currency!: string;
  @ApiProperty({ format: 'date-time', example: '2026-01-02T09:30:00.000Z' }) created_at!: string;
  @ApiProperty(STATUS_TOKEN_DOC) status_token!: string;
}

/** What a mobile-money checkout (or a new prompt) answers: the prompt went out. */
export class MobileMoneyCheckoutResponse {
  @ApiProperty({ example: 'ORDER-2042' }) reference!: string;
  @ApiProperty({ example: 1, description: 'The payment attempt this answer starts' })
  attempt!: number;
  @ApiProperty({ type: String, nullable: true, example: '5e0f1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b' })
  order_tracking_id!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'MPESA1A2B3C4D',
    description: "The gateway's own reference for the push",
  })
  push_merchant_reference!: string | null;
  @ApiProperty(ORDER_STATUS_DOC) status!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '220220',
    description: 'Paybill for a manual payment',
  })
  business_number!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'ORDER-2042',
    description: 'Account to quote with the paybill',
  })
  account_number!: string | null;
  @ApiProperty({ example: '250.00' }) amount!: string;
  @ApiProperty({ example: 'KES' }) currency!: string;
  @ApiProperty({ format: 'date-time', example: '2026-01-02T09:30:00.000Z' }) created_at!: string;
  @ApiProperty(STATUS_TOKEN_DOC) status_token!: string;
}

/** The refund of an order's payment. */
export class RefundResponse {
  @ApiProperty({ example: '0f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a', format: 'uuid' }) id!: string;
  @ApiProperty({
    example: 'accepted',
    enum: REFUND_STATUSES,
  })
  status!: string;
  @ApiProperty({ example: '1500.00' }) amount!: string;
  @ApiProperty({ example: 'KES' }) currency!: string;
  @ApiProperty({ example: false }) partial!: boolean;
  @ApiProperty({ example: 'Customer returned the goods' }) reason!: string;
  @ApiProperty({ example: 'jane@shop.example' }) requested_by!: string;
  @ApiProperty({ type: String, nullable: true, example: '200' }) gateway_status!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'Refund request successfully' })
  gateway_message!: string | null;
  @ApiProperty({ format: 'date-time', example: '2026-01-03T08:00:00.000Z' }) created_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) accepted_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) reversed_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) rejected_at!: string | null;
}

export class TimelineEntryResponse {
  @ApiProperty({ example: 'status_changed' }) type!: string;
  @ApiProperty({ type: String, example: 'pending', nullable: true }) from_status!: string | null;
  @ApiProperty({ type: String, example: 'completed', nullable: true }) to_status!: string | null;
  @ApiProperty({ example: 'ipn', enum: EVENT_SOURCES })
  source!: string;
  @ApiProperty({ type: String, example: null, nullable: true }) actor!: string | null;
  @ApiProperty({ example: '2026-01-02T09:31:12.000Z' }) at!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, example: {} })
  details!: Record<string, unknown>;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'The gateway record that caused the change',
  })
  gateway_record!: Record<string, unknown> | null;
}

export class AttemptResponse {
  @ApiProperty({ example: 1 }) number!: number;
  @ApiProperty({ description: "The order row's attempt (its ids and payment fields)" })
  current!: boolean;
  @ApiProperty({ enum: ['hosted', 'mobile_money'] }) kind!: string;
  @ApiProperty({ example: 'ORDER-2041', description: 'The id it was sent to the gateway under' })
  gateway_reference!: string;
  @ApiProperty({ type: String, nullable: true }) order_tracking_id!: string | null;
  @ApiProperty({ type: String, nullable: true }) push_merchant_reference!: string | null;
  @ApiProperty({ example: 'failed' }) status!: string;
  @ApiProperty({ type: String, nullable: true }) failure_reason!: string | null;
  @ApiProperty({ type: String, nullable: true }) confirmation_code!: string | null;
  @ApiProperty({ example: '2026-01-02T09:30:00.000Z' }) started_at!: string;
  @ApiProperty({ type: String, nullable: true }) replaced_at!: string | null;
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
  @ApiProperty({ example: 'ORDER-2041' }) reference!: string;
  @ApiProperty({
    example: 1,
    description: "The payment attempt the order's payment fields describe",
  })
  attempt!: number;
  @ApiProperty({ type: [AttemptResponse], description: 'Every payment attempt, first first' })
  attempts!: AttemptResponse[];
  @ApiProperty({ type: String, example: 'b8a6c3f0-1d2e-4c5b-9a7f-0e1d2c3b4a59', nullable: true })
  order_tracking_id!: string | null;
  @ApiProperty({ type: String, nullable: true }) push_merchant_reference!: string | null;
  @ApiProperty({ example: 'hosted', enum: ['hosted', 'mobile_money'] }) kind!: string;
  @ApiProperty({
    example: 'completed',
    enum: ORDER_STATUSES,
  })
  status!: string;
  @ApiProperty({ example: '1500.00' }) amount!: string;
  @ApiProperty({ example: 'KES' }) currency!: string;
  @ApiProperty({ example: 'Two bags of coffee' }) description!: string;
  @ApiProperty({ type: String, example: '7840512343596574603009', nullable: true })
  confirmation_code!: string | null;
  @ApiProperty({ type: String, example: 'Visa', nullable: true }) payment_method!: string | null;
  @ApiProperty({ type: String, example: '444444xxxxxx4444', nullable: true })
  payment_account!: string | null;
  @ApiProperty({ type: String, example: '1500.00', nullable: true }) paid_amount!: string | null;
  @ApiProperty({ type: String, example: 'KES', nullable: true }) paid_currency!: string | null;
  @ApiProperty({ type: String, example: '2026-01-02T09:31:10.000Z', nullable: true })
  paid_at!: string | null;
  @ApiProperty({ type: String, nullable: true }) failure_reason!: string | null;
  @ApiProperty({ example: false }) needs_review!: boolean;
  @ApiProperty({ type: String, nullable: true }) review_reason!: string | null;
  @ApiProperty({ type: String, nullable: true }) redirect_url!: string | null;
  @ApiProperty({ type: String, nullable: true }) business_number!: string | null;
  @ApiProperty({ type: String, nullable: true }) account_number!: string | null;
  @ApiProperty({ example: '2026-01-02T09:30:00.000Z' }) created_at!: string;
  @ApiProperty({ example: '2026-01-02T09:31:12.000Z' }) updated_at!: string;
  @ApiProperty({ ...objectOrNull(RefundResponse), description: "The order's refund, if any" })
  refund!: RefundResponse | null;
  @ApiProperty({ type: [TimelineEntryResponse] }) timeline!: TimelineEntryResponse[];
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
