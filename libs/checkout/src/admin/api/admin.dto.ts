import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsOptional, IsString, MaxLength, Min, Max } from 'class-validator';
import { ORDER_STATUSES, OrderStatus } from '@app/domain';
import { NotificationStatus } from '@app/persistence';
import { CursorPageQuery, OffsetPageQuery, PageQuery } from '../../http/page-query';

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
}

const NOTIFICATION_STATUSES: NotificationStatus[] = [
  'received',
  'queued',
  'applied',
  'unmatched',
  'ignored',
  'failed',
];

export class ListNotificationsQuery extends CursorPageQuery {
  @ApiPropertyOptional({ enum: NOTIFICATION_STATUSES })
  @IsOptional()
  @IsIn(NOTIFICATION_STATUSES)
  status?: NotificationStatus;

  @ApiPropertyOptional({ description: 'received at or after (ISO 8601)' })
  @IsOptional()
  @IsISO8601()
  from?: string;

  @ApiPropertyOptional({ description: 'received before (ISO 8601)' })
  @IsOptional()
  @IsISO8601()
  to?: string;
}

export class DeadLettersQuery extends OffsetPageQuery {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  queue?: string;
}

export class StuckQuery extends CursorPageQuery {
  @ApiPropertyOptional({ default: 30, description: 'pending longer than this many minutes' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(60 * 24 * 90)
  pending_minutes?: number;
}

export class ReconcileBody {
  @ApiPropertyOptional({ default: 48, description: 'orders created or changed in this window' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(24 * 90)
  since_hours?: number;
}

export class CancelBody {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(500)
  note?: string;
}
