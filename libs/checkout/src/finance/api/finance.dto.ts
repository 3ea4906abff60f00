import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { AccountField } from '../../http/account-field';
import {
  MOVEMENT_STATUSES,
  MOVEMENT_TYPES,
  MovementType,
  PAYMENT_COLUMN_NAMES,
} from '../payment-columns';
import { TimeZoneField } from '../../http/time-zone';

/** The longest `from` / `to` taken (readRange then wants a date or an instant with an offset). */
export const RANGE_TEXT_MAX_LENGTH = 40;

const RANGE =
  'a date (YYYY-MM-DD, a whole local day in `tz`) or an ISO 8601 instant with an offset';

/** The range and zone every finance read takes; the rules past the shape live in readRange. */
export class FinanceRangeQuery {
  @ApiProperty({
    description: `first day or instant: ${RANGE}`,
    example: '2026-11-01',
    maxLength: RANGE_TEXT_MAX_LENGTH,
  })
  @IsString()
  @MaxLength(RANGE_TEXT_MAX_LENGTH)
  from!: string;

  @ApiProperty({
    description: `last day (included) or end instant (excluded): ${RANGE}`,
    example: '2026-11-30',
    maxLength: RANGE_TEXT_MAX_LENGTH,
  })
  @IsString()
  @MaxLength(RANGE_TEXT_MAX_LENGTH)
  to!: string;

  @TimeZoneField('IANA time zone the dates are read in (default REPORT_TIME_ZONE)')
  tz?: string;

  @ApiPropertyOptional({ description: 'one of the configured currencies', example: 'KES' })
  @IsOptional()
  @IsString()
  @Length(3, 3)
  currency?: string;

  @AccountField('one of the merchant accounts (PESAPAL_ACCOUNTS); default every one')
  account?: string;
}

export class DailyReportQuery extends FinanceRangeQuery {}

export class PaymentExportQuery extends FinanceRangeQuery {
  @ApiPropertyOptional({ enum: MOVEMENT_TYPES })
  @IsOptional()
  @IsIn(MOVEMENT_TYPES)
  type?: MovementType;

  @ApiPropertyOptional({
    enum: MOVEMENT_STATUSES,
    description: "the payment's order status or the refund's status",
  })
  @IsOptional()
  @IsIn(MOVEMENT_STATUSES)
  status?: string;

  @ApiPropertyOptional({
    description: `comma-separated, in the order wanted, from ${PAYMENT_COLUMN_NAMES.join(', ')}; default all but account`,
    maxLength: 1000,
  })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  columns?: string;

  @ApiPropertyOptional({
    enum: ['0', '1'],
    description: '1: start with a byte-order mark, for Excel',
  })
  @IsOptional()
  @IsIn(['0', '1'])
  excel?: '0' | '1';
}
