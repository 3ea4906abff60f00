import { ApiProperty } from '@nestjs/swagger';
import { CONFIRMATION_CODE_MAX_LENGTH, REFUND_STATUSES, RefundStatus } from '@app/domain';
import { OrderEntity, RefundEntity } from '@app/persistence';
import {
  AMOUNT,
  CURRENCY,
  DATE_TIME,
  MERCHANT_REFERENCE,
  NULLABLE_DATE_TIME,
  text,
  UUID,
} from '../http/documented-schemas';
import {
  REFUND_MESSAGE_MAX_LENGTH,
  REFUND_REASON_MAX_LENGTH,
  RefundView,
  toRefundView,
} from '../orders/order-view';

/**
 * The bound of a refund's resolution note, written from an admin's request (api/refund.dto.ts
 * checks it): refunds.resolution_note is text. Its reason's is REFUND_REASON_MAX_LENGTH.
 */
export const RESOLUTION_NOTE_MAX_LENGTH = 1000;
/** Who asked for it: refunds.requested_by and payment_attempts.refund_requested_by, varchar(100). */
export const REQUESTED_BY_MAX_LENGTH = 100;

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
  @ApiProperty({ ...UUID, example: '0f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a' })
  id!: string;

  @ApiProperty({
    type: String,
    enum: REFUND_STATUSES,
    example: 'accepted',
    description:
      'requested (recorded, gateway not yet answered), accepted (the gateway took it), reversed (money moved back), rejected, or unknown (a timeout: an admin resolves it)',
  })
  status!: RefundStatus;

  @ApiProperty({ ...AMOUNT, description: 'Decimal string' })
  amount!: string;

  @ApiProperty(CURRENCY)
  currency!: string;

  @ApiProperty({ type: Boolean, example: false, description: 'Less than the paid amount' })
  partial!: boolean;

  // refunds.reason: text, written only from the refund request's reason (MaxLength there).
  @ApiProperty(text(REFUND_REASON_MAX_LENGTH, { example: 'customer returned the tickets' }))
  reason!: string;

  // refunds.requested_by: varchar(100).
  @ApiProperty(
    text(REQUESTED_BY_MAX_LENGTH, { example: 'alice@shop', description: 'Who authorised it' }),
  )
  requested_by!: string;

  @ApiProperty(
    // refunds.gateway_status: varchar(16), cut there.
    text(16, {
      nullable: true,
      example: '200',
      description: "The gateway's status code for the request; null until it answered",
    }),
  )
  gateway_status!: string | null;

  // refunds.gateway_message: text, cut where it is written (askForRefund).
  @ApiProperty(
    text(REFUND_MESSAGE_MAX_LENGTH, { nullable: true, example: 'Refund request successfully' }),
  )
  gateway_message!: string | null;

  @ApiProperty({ ...DATE_TIME, example: '2026-01-03T08:00:00.000Z' })
  created_at!: string;

  @ApiProperty({ ...NULLABLE_DATE_TIME, example: '2026-01-03T08:00:01.000Z' })
  accepted_at!: string | null;

  @ApiProperty({ ...NULLABLE_DATE_TIME, example: null })
  reversed_at!: string | null;

  @ApiProperty({ ...NULLABLE_DATE_TIME, example: null })
  rejected_at!: string | null;

  @ApiProperty({ ...MERCHANT_REFERENCE, nullable: true })
  order_reference!: string | null;

  @ApiProperty(
    text(CONFIRMATION_CODE_MAX_LENGTH, {
      example: '7840512343596574603009',
      description: 'The payment refunded (its confirmation code at the gateway)',
    }),
  )
  confirmation_code!: string;

  // refunds.admin_key_name: varchar(100).
  @ApiProperty(text(100, { example: 'ops-team', description: 'The admin key that asked' }))
  admin_key_name!: string;

  // refunds.resolved_by: varchar(100).
  @ApiProperty(
    text(100, {
      nullable: true,
      example: null,
      description: 'The admin key that recorded the outcome by hand (POST …/resolve)',
    }),
  )
  resolved_by!: string | null;

  // refunds.resolution_note: text, written only from the resolve request's note (MaxLength there).
  @ApiProperty(text(RESOLUTION_NOTE_MAX_LENGTH, { nullable: true, example: null }))
  resolution_note!: string | null;

  @ApiProperty({ ...DATE_TIME, example: '2026-01-03T08:00:01.000Z' })
  updated_at!: string;
}
