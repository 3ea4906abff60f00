import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { CursorPageQuery } from '../../http/page-query';

export class ListMerchantEventsQuery extends CursorPageQuery {
  @ApiPropertyOptional({ description: 'event type, e.g. order.completed' })
  @IsOptional()
  @IsString()
  @MaxLength(48)
  type?: string;

  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'only delivered, or undelivered' })
  @IsOptional()
  @IsIn(['true', 'false'])
  delivered?: 'true' | 'false';

  @ApiPropertyOptional({
    description: "the order's reference, order_tracking_id or push merchant reference",
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  order?: string;
}
