import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** Documentation of the answers (the JSON is built by checkout-answers.ts and order-view.ts). */
export class HostedCheckoutResponse {
  @ApiProperty({ example: 'ORDER-2041' }) reference!: string;
  @ApiProperty({ example: 'b8a6c3f0-1d2e-4c5b-9a7f-0e1d2c3b4a59' }) order_tracking_id!: string;
  @ApiProperty({ example: 'pending' }) status!: string;
  @ApiProperty({
    example:
      'https://pay.example/pesapaliframe/PesapalIframe3/Index?OrderTrackingId=b8a6c3f0-1d2e-4c5b-9a7f-0e1d2c3b4a59',
    description: 'Send the customer here to pay',
  })
  redirect_url!: string;
  @ApiProperty({ example: '1500.00' }) amount!: string;
  @ApiProperty({ example: 'KES' }) currency!: string;
  @ApiProperty({ example: '2026-01-02T09:30:00.000Z' }) created_at!: string;
  @ApiProperty({
    example: 'pst_…',
    description:
      "Read-only: the customer's browser follows this order's live status with it (GET /v1/orders/:reference/stream?status_token=…)",
  })
  status_token!: string;
}

export class MobileMoneyCheckoutResponse {
  @ApiProperty({ example: 'ORDER-2042' }) reference!: string;
  @ApiProperty({ example: '5e0f1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b' }) order_tracking_id!: string;
  @ApiProperty({
    example: 'MPESA1A2B3C4D',
    description: "The gateway's own reference for the push",
  })
  push_merchant_reference!: string;
  @ApiProperty({ example: 'pending' }) status!: string;
  @ApiProperty({ example: '220220', description: 'Paybill for a manual payment' })
  business_number!: string;
  @ApiProperty({ example: 'ORDER-2042', description: 'Account to quote with the paybill' })
  account_number!: string;
  @ApiProperty({ example: '250.00' }) amount!: string;
  @ApiProperty({ example: 'KES' }) currency!: string;
  @ApiProperty({ example: '2026-01-02T09:30:00.000Z' }) created_at!: string;
  @ApiProperty({
    example: 'pst_…',
    description:
      "Read-only: the customer's browser follows this order's live status with it (GET /v1/orders/:reference/stream?status_token=…)",
  })
  status_token!: string;
}

export class TimelineEntryResponse {
  @ApiProperty({ example: 'status_changed' }) type!: string;
  @ApiPropertyOptional({ example: 'pending', nullable: true }) from_status!: string | null;
  @ApiPropertyOptional({ example: 'completed', nullable: true }) to_status!: string | null;
  @ApiProperty({ example: 'ipn', enum: ['api', 'ipn', 'poll', 'return', 'admin', 'worker'] })
  source!: string;
  @ApiPropertyOptional({ example: null, nullable: true }) actor!: string | null;
  @ApiProperty({ example: '2026-01-02T09:31:12.000Z' }) at!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, example: {} })
  details!: Record<string, unknown>;
  @ApiPropertyOptional({ description: 'The gateway record that caused the change' })
  gateway_record!: unknown;
}

export class AttemptResponse {
  @ApiProperty({ example: 1 }) number!: number;
  @ApiProperty({ description: "The order row's attempt (its ids and payment fields)" })
  current!: boolean;
  @ApiProperty({ enum: ['hosted', 'mobile_money'] }) kind!: string;
  @ApiProperty({ example: 'ORDER-2041', description: 'The id it was sent to the gateway under' })
  gateway_reference!: string;
  @ApiPropertyOptional({ nullable: true }) order_tracking_id!: string | null;
  @ApiPropertyOptional({ nullable: true }) push_merchant_reference!: string | null;
  @ApiProperty({ example: 'failed' }) status!: string;
  @ApiPropertyOptional({ nullable: true }) failure_reason!: string | null;
  @ApiPropertyOptional({ nullable: true }) confirmation_code!: string | null;
  @ApiProperty({ example: '2026-01-02T09:30:00.000Z' }) started_at!: string;
  @ApiPropertyOptional({ nullable: true }) replaced_at!: string | null;
  @ApiPropertyOptional({
    nullable: true,
    description: "A double payment's refund: requested, accepted, rejected or unknown",
  })
  refund_status!: string | null;
}

export class OrderResponse {
  @ApiProperty({ example: 'ORDER-2041' }) reference!: string;
  @ApiProperty({
    example: 1,
    description: "The payment attempt the order's payment fields describe",
  })
  attempt!: number;
  @ApiProperty({ type: [AttemptResponse], description: 'Every payment attempt, first first' })
  attempts!: AttemptResponse[];
  @ApiPropertyOptional({ example: 'b8a6c3f0-1d2e-4c5b-9a7f-0e1d2c3b4a59', nullable: true })
  order_tracking_id!: string | null;
  @ApiPropertyOptional({ nullable: true }) push_merchant_reference!: string | null;
  @ApiProperty({ example: 'hosted', enum: ['hosted', 'mobile_money'] }) kind!: string;
  @ApiProperty({
    example: 'completed',
    enum: ['pending', 'completed', 'failed', 'cancelled', 'reversed', 'expired'],
  })
  status!: string;
  @ApiProperty({ example: '1500.00' }) amount!: string;
  @ApiProperty({ example: 'KES' }) currency!: string;
  @ApiProperty({ example: 'Two bags of coffee' }) description!: string;
  @ApiPropertyOptional({ example: '7840512343596574603009', nullable: true })
  confirmation_code!: string | null;
  @ApiPropertyOptional({ example: 'Visa', nullable: true }) payment_method!: string | null;
  @ApiPropertyOptional({ example: '444444xxxxxx4444', nullable: true })
  payment_account!: string | null;
  @ApiPropertyOptional({ example: '1500.00', nullable: true }) paid_amount!: string | null;
  @ApiPropertyOptional({ example: 'KES', nullable: true }) paid_currency!: string | null;
  @ApiPropertyOptional({ example: '2026-01-02T09:31:10.000Z', nullable: true })
  paid_at!: string | null;
  @ApiPropertyOptional({ nullable: true }) failure_reason!: string | null;
  @ApiProperty({ example: false }) needs_review!: boolean;
  @ApiPropertyOptional({ nullable: true }) review_reason!: string | null;
  @ApiPropertyOptional({ nullable: true }) redirect_url!: string | null;
  @ApiPropertyOptional({ nullable: true }) business_number!: string | null;
  @ApiPropertyOptional({ nullable: true }) account_number!: string | null;
  @ApiProperty({ example: '2026-01-02T09:30:00.000Z' }) created_at!: string;
  @ApiProperty({ example: '2026-01-02T09:31:12.000Z' }) updated_at!: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, nullable: true })
  refund!: unknown;
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
