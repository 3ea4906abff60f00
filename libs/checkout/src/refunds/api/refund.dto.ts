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
import { CursorPageQuery, PageQuery } from '../../http/page-query';
import { RefundApprovalStatus } from '@app/persistence';
import { REFUND_REASON_MAX_LENGTH } from '../../orders/order-view';
import { RESOLUTION_NOTE_MAX_LENGTH } from '../refund-admin-view';
import { APPROVAL_STATUSES } from './refund-approvals';

/** A decimal amount as numeric(15,2) holds it: 13 digits, a point, 2 decimals. */
const AMOUNT_TEXT_MAX_LENGTH = 16;

/**
 * Why: all a full refund of a double payment's second payment needs. Who asks is the caller's
 * identity (sent to the gateway as username), never a field of the request.
 */
export class RefundDoublePaymentDto {
  @ApiProperty({ description: 'Why; sent to the gateway as remarks' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(REFUND_REASON_MAX_LENGTH)
  reason!: string;
}

/** Why a payment without an order is refunded (in full); the requester is the caller. */
export class RefundUnmatchedPaymentDto {
  @ApiProperty({
    description: 'Why; sent to the gateway as remarks',
    maxLength: REFUND_REASON_MAX_LENGTH,
  })
  @IsString()
  @Matches(/\S/, { message: 'reason must not be blank' })
  @MaxLength(REFUND_REASON_MAX_LENGTH)
  reason!: string;
}

export class DeclineRefundApprovalDto {
  @ApiProperty({ description: 'Why it is declined', maxLength: REFUND_REASON_MAX_LENGTH })
  @IsString()
  @Matches(/\S/, { message: 'reason must not be blank' })
  @MaxLength(REFUND_REASON_MAX_LENGTH)
  reason!: string;
}

export class ListRefundApprovalsQuery extends CursorPageQuery {
  @ApiPropertyOptional({ enum: APPROVAL_STATUSES, description: 'pending unless given' })
  @IsOptional()
  @IsIn(APPROVAL_STATUSES)
  status?: RefundApprovalStatus;
}

export class CreateRefundDto extends RefundDoublePaymentDto {
  @ApiProperty({ example: '1500.00', description: 'Exact decimal string, at most the paid amount' })
  @IsString()
  @MaxLength(AMOUNT_TEXT_MAX_LENGTH)
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
  @MaxLength(RESOLUTION_NOTE_MAX_LENGTH)
  note!: string;
}

export class ListRefundsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: REFUND_STATUSES })
  @IsOptional()
  @IsIn(REFUND_STATUSES)
  status?: RefundStatus;
}
