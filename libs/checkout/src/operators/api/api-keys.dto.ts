import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { PERMISSIONS, Permission } from '@app/domain';
import { CursorPageQuery, ISO_DATE_TIME_MAX_LENGTH } from '../../http/page-query';

export class CreateApiKeyBody {
  @ApiProperty({ description: 'what the key is for, as people read it', example: 'shop-backend' })
  @IsString()
  @Matches(/\S/, { message: 'name must not be blank' })
  @MaxLength(100)
  name!: string;

  @ApiProperty({
    description: 'what the key may do (only scopes the creator holds)',
    enum: PERMISSIONS,
    isArray: true,
    minItems: 1,
    maxItems: PERMISSIONS.length,
    example: ['checkout:write', 'orders:read'],
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(PERMISSIONS.length)
  @ArrayUnique()
  @IsIn(PERMISSIONS, {
    each: true,
    message: ({ value }) =>
      `each scope must be one of: ${PERMISSIONS.join(', ')} (unknown: ${[value]
        .flat()
        .filter((scope) => !(PERMISSIONS as readonly unknown[]).includes(scope))
        .map(String)
        .join(', ')})`,
  })
  scopes!: Permission[];

  @ApiPropertyOptional({
    description: 'when the key stops working (an instant with its offset); never when left out',
    example: '2027-06-30T00:00:00Z',
    maxLength: ISO_DATE_TIME_MAX_LENGTH,
  })
  @IsOptional()
  @IsISO8601({ strict: true })
  @MaxLength(ISO_DATE_TIME_MAX_LENGTH)
  expires_at?: string;
}

export class RollApiKeyBody {
  @ApiPropertyOptional({
    description: 'how long the old key keeps working beside the new one, in minutes (default 60)',
    minimum: 0,
    maximum: 10_080,
    example: 60,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(10_080)
  grace_minutes?: number;
}

export class ListApiKeysQuery extends CursorPageQuery {}
