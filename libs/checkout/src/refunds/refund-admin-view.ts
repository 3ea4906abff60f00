import { ApiProperty } from '@nestjs/swagger';
import { REFUND_STATUSES, RefundStatus } from '@app/domain';
import { OrderEntity, RefundEntity } from '@app/persistence';
import { RefundView, toRefundView } from '../orders/order-view';

/** The refund as an admin sees it: the shop's view plus the audit fields and its order. */
export interface AdminRefundView extends RefundView {
  order_reference: string | null;
  confirmation_code: string;
  admin_key_name: string;
  resolved_by: string | null;
  resolution_note: string | null;
  updated_at: string;
}

export function toAdminRefundView(
  refund: RefundEntity,
  order: OrderEntity | null = refund.order ?? null,
): AdminRefundView {
  return {
    ...toRefundView(refund),
    order_reference: order?.merchantReference ?? null,
    confirmation_code: refund.confirmationCode,
    admin_key_name: refund.adminKeyName,
    resolved_by: refund.resolvedBy,
    resolution_note: refund.resolutionNote,
    updated_at: refund.updatedAt.toISOString(),
  };
}

/**
 * The OpenAPI documentation of AdminRefundView (the admin answers show it: refund routes and the
 * order views); it implements the view, so a field added there without its documentation fails
 * the type check.
 */
export class AdminRefundResponse implements AdminRefundView {
  @ApiProperty({ type: String, format: 'uuid', example: '0f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a' })
  id!: string;

  @ApiProperty({
    type: String,
    enum: REFUND_STATUSES,
    example: 'accepted',
    description:
      'requested (recorded, gateway not yet answered), accepted (the gateway took it), reversed (money moved back), rejected, or unknown (a timeout: an admin resolves it)',
  })
  status!: RefundStatus;

  @ApiProperty({ type: String, example: '1500.00', description: 'Decimal string' })
  amount!: string;

  @ApiProperty({ type: String, example: 'KES' })
  currency!: string;

  @ApiProperty({ type: Boolean, example: false, description: 'Less than the paid amount' })
  partial!: boolean;

  @ApiProperty({ type: String, example: 'customer returned the tickets' })
  reason!: string;

  @ApiProperty({ type: String, example: 'alice@shop', description: 'Who authorised it' })
  requested_by!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '200',
    description: "The gateway's status code for the request; null until it answered",
  })
  gateway_status!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'Refund request successfully' })
  gateway_message!: string | null;

  @ApiProperty({ type: String, format: 'date-time', example: '2026-01-03T08:00:00.000Z' })
  created_at!: string;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-01-03T08:00:01.000Z',
  })
  accepted_at!: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null })
  reversed_at!: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null })
  rejected_at!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'ORDER-2041' })
  order_reference!: string | null;

  @ApiProperty({
    type: String,
    example: '7840512343596574603009',
    description: 'The payment refunded (its confirmation code at the gateway)',
  })
  confirmation_code!: string;

  @ApiProperty({ type: String, example: 'ops-team', description: 'The admin key that asked' })
  admin_key_name!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'The admin key that recorded the outcome by hand (POST …/resolve)',
  })
  resolved_by!: string | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  resolution_note!: string | null;

  @ApiProperty({ type: String, format: 'date-time', example: '2026-01-03T08:00:01.000Z' })
  updated_at!: string;
}
