import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUUID, Max, MaxLength, Min } from 'class-validator';

export class ListMerchantEventsQuery {
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

  @ApiPropertyOptional({ minimum: 1, maximum: 200, default: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;

  @ApiPropertyOptional({ description: 'next_before of the previous page' })
  @IsOptional()
  @IsUUID()
  before?: string;
}
