import { ApiProperty } from '@nestjs/swagger';
import { CONFIRMATION_CODE_MAX_LENGTH } from '@app/domain';
import {
  AMOUNT,
  ATTEMPT_REFUND_STATUSES,
  CURRENCY,
  INTEGER,
  NULLABLE_DATE_TIME,
  text,
} from '../../http/documented-schemas';
import { CursorPage } from '../../http/cursor-page';
import { AttemptRefundStatus } from '@app/persistence';
import { ATTEMPTS_PER_ORDER_LIMIT, REFUND_MESSAGE_MAX_LENGTH } from '../../orders/order-view';
import { DoublePaymentRefundView } from '../double-payment-refunds';
import { AdminRefundResponse, REQUESTED_BY_MAX_LENGTH } from '../refund-admin-view';
import { RefundPage } from './refund-list.service';
import type { RefundService } from './refund.service';

/**
 * Documentation of the admin refund answers (OpenAPI only: the JSON is built by
 * refund-admin-view.ts and double-payment-refunds.ts). Each class implements the view it
 * documents, so a field added there without its documentation fails the type check. The refund
 * itself (AdminRefundResponse) is documented beside its view, in refund-admin-view.ts: the admin
 * order views show it too.
 */

type Answer<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;

/** What RefundsController answers for a refund it recorded or resolved. */
type RefundAnswer = { refund: Answer<RefundService['resolve']> };

/** POST /v1/admin/orders/{reference}/refunds and POST /v1/admin/refunds/{id}/resolve. */
export class AdminRefundResult implements RefundAnswer {
  @ApiProperty({ type: AdminRefundResponse })
  refund!: AdminRefundResponse;
}

/** GET /v1/admin/refunds: newest first, a cursor page at a time. */
export class AdminRefundPage extends CursorPage(AdminRefundResponse) implements RefundPage {}

/** The refund of a double payment's second payment (an earlier attempt's). */
export class AdminDoublePaymentRefund implements DoublePaymentRefundView {
  @ApiProperty({
    ...INTEGER,
    minimum: 1,
    maximum: ATTEMPTS_PER_ORDER_LIMIT,
    example: 1,
    description: 'The attempt whose payment it refunds',
  })
  attempt!: number;

  @ApiProperty(
    text(CONFIRMATION_CODE_MAX_LENGTH, { nullable: true, example: '7840512343596574603001' }),
  )
  confirmation_code!: string | null;

  @ApiProperty({
    ...AMOUNT,
    nullable: true,
    description: "The attempt's paid amount (decimal string), refunded in full",
  })
  amount!: string | null;

  @ApiProperty(CURRENCY)
  currency!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    // null is listed too: a validator applies enum to a nullable value as well (OpenAPI 3.0.3).
    enum: [...ATTEMPT_REFUND_STATUSES, null],
    example: 'accepted',
    description: 'accepted, rejected, or unknown (a timeout) once the gateway was asked',
  })
  status!: AttemptRefundStatus | null;

  // payment_attempts.refund_message: text, cut where it is written (askForRefund).
  @ApiProperty(
    text(REFUND_MESSAGE_MAX_LENGTH, {
      nullable: true,
      example: 'Refund request successfully',
      description: "The gateway's answer, or why the outcome is unknown",
    }),
  )
  message!: string | null;

  // payment_attempts.refund_requested_by: varchar(100).
  @ApiProperty(text(REQUESTED_BY_MAX_LENGTH, { nullable: true, example: 'alice@shop' }))
  requested_by!: string | null;

  @ApiProperty({ ...NULLABLE_DATE_TIME, example: '2026-01-03T08:00:00.000Z' })
  requested_at!: string | null;
}

/** POST /v1/admin/orders/{reference}/attempts/{attempt}/refund. */
export class AdminDoublePaymentRefundResult implements Extract<
  Answer<RefundService['requestDoublePayment']>,
  { refund: unknown }
> {
  @ApiProperty({ type: AdminDoublePaymentRefund })
  refund!: AdminDoublePaymentRefund;
}
