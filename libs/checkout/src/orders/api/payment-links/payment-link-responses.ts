import { ApiProperty } from '@nestjs/swagger';
import { ORDER_STATUSES } from '@app/domain';
import { PAYMENT_LINK_FIELDS, PaymentLinkField } from '@app/persistence';
import {
  AMOUNT,
  CURRENCY,
  DATE_TIME,
  INTEGER,
  MERCHANT_REFERENCE,
  NULLABLE_DATE_TIME,
  text,
  URL,
  UUID,
} from '../../../http/documented-schemas';
import { CursorPage } from '../../../http/cursor-page';
import { PAYMENT_LINK_STATUSES, PaymentLinkStatus } from './payment-link-status';
import { AFTER_PAYMENT_MESSAGE_MAX_LENGTH, REFERENCE_PREFIX_MAX_LENGTH } from './payment-links.dto';
import type { PaymentLinkDetail, PaymentLinkPage } from './payment-links.service';
import type { PaymentLinkPaymentView, PaymentLinkView } from './payment-link-view';

/**
 * Documentation of the answers (OpenAPI only: the JSON is built by payment-link-view.ts). Each
 * class implements the view it documents, so a field added there without its documentation
 * fails the type check.
 */
export class AfterPaymentResponse {
  @ApiProperty({ ...URL, nullable: true, example: null })
  redirect_url!: string | null;

  @ApiProperty(text(AFTER_PAYMENT_MESSAGE_MAX_LENGTH, { nullable: true, example: 'Thank you!' }))
  message!: string | null;
}

export class PaymentLinkResponse implements PaymentLinkView {
  @ApiProperty(UUID)
  id!: string;

  @ApiProperty({ ...URL, description: 'The page customers pay on (PUBLIC_BASE_URL/pay/{id})' })
  url!: string;

  @ApiProperty({ type: String, enum: PAYMENT_LINK_STATUSES, example: 'active' })
  status!: PaymentLinkStatus;

  @ApiProperty({ ...AMOUNT, nullable: true, description: 'Fixed amount; null when open' })
  amount!: string | null;

  @ApiProperty({ ...AMOUNT, nullable: true, example: null })
  min_amount!: string | null;

  @ApiProperty({ ...AMOUNT, nullable: true, example: null })
  max_amount!: string | null;

  @ApiProperty(CURRENCY)
  currency!: string;

  @ApiProperty(text(20, { example: 'default', description: 'The merchant account paid' }))
  account!: string;

  @ApiProperty(text(100, { example: 'Invoice 2041: two bags of coffee' }))
  description!: string;

  @ApiProperty(
    text(30, {
      example: 'INV-2041',
      description: `Its payments' references are <prefix>-1, <prefix>-2, … (at most ${REFERENCE_PREFIX_MAX_LENGTH} characters when given)`,
    }),
  )
  reference_prefix!: string;

  @ApiProperty(NULLABLE_DATE_TIME)
  expires_at!: string | null;

  @ApiProperty({ ...INTEGER, minimum: 1, nullable: true, example: 1 })
  max_payments!: number | null;

  @ApiProperty({ type: AfterPaymentResponse })
  after_payment!: AfterPaymentResponse;

  @ApiProperty({
    type: [String],
    enum: PAYMENT_LINK_FIELDS,
    maxItems: PAYMENT_LINK_FIELDS.length,
    example: ['email'],
  })
  collect!: PaymentLinkField[];

  @ApiProperty({ ...INTEGER, description: 'Payments started on its page (the last <n>)' })
  payments_started!: number;

  @ApiProperty({ ...INTEGER, description: 'Payments completed' })
  payments_completed!: number;

  @ApiProperty({ ...AMOUNT, description: 'What its completed payments took' })
  amount_collected!: string;

  @ApiProperty(text(254, { example: 'amina@example.com' }))
  created_by!: string;

  @ApiProperty(DATE_TIME)
  created_at!: string;

  @ApiProperty(DATE_TIME)
  updated_at!: string;

  @ApiProperty(NULLABLE_DATE_TIME)
  completed_at!: string | null;
}

export class PaymentLinkResult {
  @ApiProperty({ type: PaymentLinkResponse })
  payment_link!: PaymentLinkResponse;
}

export class PaymentLinkPaymentResponse implements PaymentLinkPaymentView {
  @ApiProperty(MERCHANT_REFERENCE)
  reference!: string;

  @ApiProperty({ type: String, enum: ORDER_STATUSES, example: 'completed' })
  status!: string;

  @ApiProperty(AMOUNT)
  amount!: string;

  @ApiProperty(CURRENCY)
  currency!: string;

  @ApiProperty({ type: String, enum: ['hosted', 'mobile_money'], example: 'hosted' })
  kind!: string;

  @ApiProperty(text(254, { nullable: true, example: 'amina@example.com' }))
  customer_email!: string | null;

  @ApiProperty(NULLABLE_DATE_TIME)
  paid_at!: string | null;

  @ApiProperty(DATE_TIME)
  created_at!: string;
}

export class PaymentLinkDetailResponse implements PaymentLinkDetail {
  @ApiProperty({ type: PaymentLinkResponse })
  payment_link!: PaymentLinkResponse;

  @ApiProperty({
    type: [PaymentLinkPaymentResponse],
    maxItems: 20,
    description: 'Its latest payments (orders), newest first',
  })
  payments!: PaymentLinkPaymentResponse[];
}

export class PaymentLinkPageResponse
  extends CursorPage(PaymentLinkResponse, 'newest first')
  implements PaymentLinkPage {}
