import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
} from 'class-validator';

/** The most items a page of any list holds. */
export const PAGE_LIMIT_MAX = 200;
/** An ISO 8601 date-time with milliseconds and an offset is 29 characters; nothing longer is one. */
export const ISO_DATE_TIME_MAX_LENGTH = 35;

/** How many items a list answers: 50 unless asked, at most 200. */
export class LimitQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: PAGE_LIMIT_MAX, default: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(PAGE_LIMIT_MAX)
  limit?: number;
}

/**
 * limit/offset pagination, for the one list that lives in Redis (dead letters, kept a week) and
 * so cannot take a cursor; the offset is bounded so that no page reads far into it.
 */
export class OffsetPageQuery extends LimitQuery {
  @ApiPropertyOptional({ default: 0, maximum: 10_000 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(10_000)
  offset?: number;
}

/** Cursor pagination: `cursor` is the `next_cursor` of the previous page (page-cursor.ts). */
export class CursorPageQuery extends LimitQuery {
  @ApiPropertyOptional({ description: 'next_cursor of the previous page', maxLength: 512 })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  cursor?: string;
}

/** Shared by the admin order and refund lists: pagination, a created_at window and a currency. */
export class PageQuery extends CursorPageQuery {
  @ApiPropertyOptional({ description: 'created at or after (ISO 8601)' })
  @IsOptional()
  @MaxLength(ISO_DATE_TIME_MAX_LENGTH)
  @IsISO8601()
  from?: string;

  @ApiPropertyOptional({ description: 'created before (ISO 8601)' })
  @IsOptional()
  @MaxLength(ISO_DATE_TIME_MAX_LENGTH)
  @IsISO8601()
  to?: string;

  @ApiPropertyOptional({ example: 'KES' })
  @IsOptional()
  @IsString()
  @Length(3, 3)
  currency?: string;
}
