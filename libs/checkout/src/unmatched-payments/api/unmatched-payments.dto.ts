import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { UNMATCHED_PAYMENT_STATUSES, UnmatchedPaymentStatus } from '@app/persistence';
import { CursorPageQuery } from '../../http/page-query';

export class ListUnmatchedPaymentsQuery extends CursorPageQuery {
  @ApiPropertyOptional({
    enum: UNMATCHED_PAYMENT_STATUSES,
    description: 'every status unless given',
  })
  @IsOptional()
  @IsIn(UNMATCHED_PAYMENT_STATUSES)
  status?: UnmatchedPaymentStatus;
}

/**
 * The order the payment pays, by any name an order is found by (the shop's reference, a tracking
 * id, a push reference): at most 100 characters, like every such name.
 */
export class MatchUnmatchedPaymentDto {
  @ApiProperty({
    description: "The order's reference (or an order_tracking_id or push_merchant_reference of it)",
    maxLength: 100,
    example: 'ORDER-2041',
  })
  @IsString()
  @Matches(/\S/, { message: 'reference must not be blank' })
  @MaxLength(100)
  reference!: string;
}
