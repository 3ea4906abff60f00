import { ApiProperty } from '@nestjs/swagger';
import { CONFIRMATION_CODE_MAX_LENGTH } from '@app/domain';
import { UNMATCHED_PAYMENT_STATUSES, UnmatchedPaymentStatus } from '@app/persistence';
import {
  AMOUNT,
  CURRENCY,
  DATE_TIME,
  MERCHANT_REFERENCE,
  NULLABLE_DATE_TIME,
  text,
  UUID,
} from '../../http/documented-schemas';
import { CursorPage } from '../../http/cursor-page';
import { UnmatchedPaymentView } from '../unmatched-payment-view';
import { MatchResult, UnmatchedPaymentPage } from './unmatched-payments.service';

/**
 * Documentation of the answers (OpenAPI only: the JSON is built by unmatched-payment-view.ts).
 * Each class implements the view it documents, so a field added there without its
 * documentation fails the type check. Lengths are the columns'.
 */
export class UnmatchedPaymentResponse implements UnmatchedPaymentView {
  @ApiProperty(UUID)
  id!: string;

  @ApiProperty(text(20, { example: 'default', description: 'The merchant account it was paid to' }))
  gateway_account!: string;

  @ApiProperty(
    text(100, {
      example: 'b8a6c3f0-1d2e-4c5b-9a7f-0e1d2c3b4a59',
      description: "The gateway's tracking id of the payment",
    }),
  )
  order_tracking_id!: string;

  @ApiProperty({ ...AMOUNT, description: 'What the gateway took (decimal string)' })
  amount!: string;

  @ApiProperty(CURRENCY)
  currency!: string;

  @ApiProperty(
    text(100, {
      nullable: true,
      example: 'DASH-0042',
      description:
        'The reference the gateway holds the payment under (none of our orders carries it)',
    }),
  )
  merchant_reference!: string | null;

  @ApiProperty(text(64, { nullable: true, example: 'Visa' }))
  payment_method!: string | null;

  @ApiProperty(text(64, { nullable: true, example: '444444******4444' }))
  payment_account!: string | null;

  @ApiProperty(
    text(CONFIRMATION_CODE_MAX_LENGTH, { nullable: true, example: '7840512343596574603001' }),
  )
  confirmation_code!: string | null;

  @ApiProperty({ ...NULLABLE_DATE_TIME, description: 'When the gateway says it was paid' })
  paid_at!: string | null;

  @ApiProperty({ ...UUID, nullable: true, description: 'The notification whose lookup found it' })
  notification_id!: string | null;

  @ApiProperty({
    type: String,
    enum: UNMATCHED_PAYMENT_STATUSES,
    example: 'open',
    description:
      'open (to settle), matched (it paid order_reference), refund_requested (adopted as order_reference and refunded through it)',
  })
  status!: UnmatchedPaymentStatus;

  @ApiProperty({
    ...MERCHANT_REFERENCE,
    nullable: true,
    example: null,
    description: 'The order it paid, or was adopted as to be refunded',
  })
  order_reference!: string | null;

  @ApiProperty(text(254, { nullable: true, example: null, description: 'Who settled it' }))
  settled_by!: string | null;

  @ApiProperty({ ...NULLABLE_DATE_TIME, example: null })
  settled_at!: string | null;

  @ApiProperty(DATE_TIME)
  created_at!: string;
}

/** GET /v1/admin/unmatched-payments: newest first, a cursor page at a time. */
export class UnmatchedPaymentPageResponse
  extends CursorPage(UnmatchedPaymentResponse)
  implements UnmatchedPaymentPage {}

/** GET /v1/admin/unmatched-payments/{id}. */
export class UnmatchedPaymentResult {
  @ApiProperty({ type: UnmatchedPaymentResponse })
  unmatched_payment!: UnmatchedPaymentResponse;
}

export class MatchedOrder {
  @ApiProperty(MERCHANT_REFERENCE)
  reference!: string;

  @ApiProperty({ type: String, enum: ['completed'], example: 'completed' })
  status!: string;
}

/** POST /v1/admin/unmatched-payments/{id}/match. */
export class MatchResultResponse implements MatchResult {
  @ApiProperty({ type: UnmatchedPaymentResponse })
  unmatched_payment!: UnmatchedPaymentResponse;

  @ApiProperty({ type: MatchedOrder })
  order!: MatchedOrder;
}
