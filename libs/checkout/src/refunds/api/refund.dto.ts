import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';
import { REFUND_STATUSES, RefundStatus } from '@app/domain';
import { PageQuery } from '../../http/page-query';

/** Why and who: all a full refund of a double payment's second payment needs. */
export class RefundDoublePaymentDto {
  @ApiProperty({ description: 'Why; sent to the gateway as remarks' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(500)
  reason!: string;

  @ApiProperty({ description: 'Who authorised it; sent to the gateway as username' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  requested_by!: string;
}

export class CreateRefundDto extends RefundDoublePaymentDto {
  @ApiProperty({ example: '1500.00', description: 'Exact decimal string, at most the paid amount' })
  @IsString()
  @Matches(/^\d{1,13}(\.\d{1,2})?$/, {
    message: 'amount must be a decimal string with at most 2 places, e.g. "150.00"',
  })
  amount!: string;

  @ApiPropertyOptional({ description: 'Must be true for an amount below the paid amount' })
  @IsOptional()
  @IsBoolean()
  confirm_partial?: boolean;
}

export const RESOLVABLE = ['accepted', 'rejected', 'reversed'] as const;

export class ResolveRefundDto {
  @ApiProperty({ enum: RESOLVABLE })
  @IsIn(RESOLVABLE)
  status!: (typeof RESOLVABLE)[number];

  @ApiProperty({ description: 'What the admin learnt and where (e.g. the merchant dashboard)' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(1000)
  note!: string;
}

export class ListRefundsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: REFUND_STATUSES })
  @IsOptional()
  @IsIn(REFUND_STATUSES)
  status?: RefundStatus;
}
