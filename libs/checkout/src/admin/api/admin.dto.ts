import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsOptional, IsString, MaxLength, Min, Max } from 'class-validator';
import { ORDER_STATUSES, OrderStatus } from '@app/domain';
import { NotificationStatus } from '@app/persistence';
import {
  CursorPageQuery,
  ISO_DATE_TIME_MAX_LENGTH,
  OffsetPageQuery,
  PageQuery,
} from '../../http/page-query';
import { QUEUE_NAME_MAX_LENGTH } from './dead-letters/dead-letter.service';
import { AccountField } from '../../http/account-field';

/** The stuck list's longest pending_minutes: 90 days. */
export const PENDING_MINUTES_MAX = 60 * 24 * 90;
/** The longest window an on-demand reconciliation looks back over: 90 days. */
export const SINCE_HOURS_MAX = 24 * 90;

export class ListOrdersQuery extends PageQuery {
  @ApiPropertyOptional({ enum: ORDER_STATUSES })
  @IsOptional()
  @IsIn(ORDER_STATUSES)
  status?: OrderStatus;

  @ApiPropertyOptional({
    description:
      'reference, order tracking id, push reference, confirmation code, customer email or phone',
  })
  @IsOptional()
  @IsString()
  @MaxLength(254)
  q?: string;

  @AccountField('the merchant account (PESAPAL_ACCOUNTS) the orders were taken on')
  account?: string;
}

/** Every NotificationStatus: a record, so that the compiler checks the list is whole. */
const NOTIFICATION_STATUS_SET: Record<NotificationStatus, true> = {
  received: true,
  queued: true,
  applied: true,
  unmatched: true,
  ignored: true,
  failed: true,
};
export const NOTIFICATION_STATUSES = Object.keys(NOTIFICATION_STATUS_SET) as NotificationStatus[];

export class ListNotificationsQuery extends CursorPageQuery {
  @ApiPropertyOptional({ enum: NOTIFICATION_STATUSES })
  @IsOptional()
  @IsIn(NOTIFICATION_STATUSES)
  status?: NotificationStatus;

  @ApiPropertyOptional({ description: 'received at or after (ISO 8601)' })
  @IsOptional()
  @MaxLength(ISO_DATE_TIME_MAX_LENGTH)
  @IsISO8601()
  from?: string;

  @ApiPropertyOptional({ description: 'received before (ISO 8601)' })
  @IsOptional()
  @MaxLength(ISO_DATE_TIME_MAX_LENGTH)
  @IsISO8601()
  to?: string;
}

export class DeadLettersQuery extends OffsetPageQuery {
  @ApiPropertyOptional({ description: 'One queue (a name of no queue is 404 queue_not_found)' })
  @IsOptional()
  @IsString()
  @MaxLength(QUEUE_NAME_MAX_LENGTH)
  queue?: string;
}

export class StuckQuery extends CursorPageQuery {
  @ApiPropertyOptional({ default: 30, description: 'pending longer than this many minutes' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(PENDING_MINUTES_MAX)
  pending_minutes?: number;
}

export class ReconcileBody {
  @ApiPropertyOptional({ default: 48, description: 'orders created or changed in this window' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(SINCE_HOURS_MAX)
  since_hours?: number;
}

export class CancelBody {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(500)
  note?: string;
}
