import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsDate,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { SUBSCRIBABLE_EVENT_TYPES } from '@app/domain';
import { URL_MAX_LENGTH } from '../../http/documented-schemas';
import { ISO_DATE_TIME_MAX_LENGTH } from '../../http/page-query';

const EVENT_TYPES_DOC =
  'event types this endpoint receives; omit for every type. One of: ' +
  SUBSCRIBABLE_EVENT_TYPES.join(', ');
const EVENT_TYPE_REASON = `each must be one of ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}`;

export class CreateWebhookEndpointBody {
  @ApiProperty({ example: 'https://shop.example/hooks/pesapal' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(URL_MAX_LENGTH)
  url!: string;

  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  description?: string;

  @ApiPropertyOptional({ description: EVENT_TYPES_DOC, type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayNotEmpty({ message: 'must list at least one event type (omit it for every type)' })
  @ArrayMaxSize(SUBSCRIBABLE_EVENT_TYPES.length)
  @ArrayUnique({ message: 'must not list an event type twice' })
  @IsIn(SUBSCRIBABLE_EVENT_TYPES, { each: true, message: EVENT_TYPE_REASON })
  event_types?: string[];
}

export class UpdateWebhookEndpointBody {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(URL_MAX_LENGTH)
  url?: string;

  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  description?: string;

  @ApiPropertyOptional({
    description: `${EVENT_TYPES_DOC}; null for every type`,
    type: [String],
    nullable: true,
  })
  @IsOptional()
  @IsArray()
  @ArrayNotEmpty({ message: 'must list at least one event type (null for every type)' })
  @ArrayMaxSize(SUBSCRIBABLE_EVENT_TYPES.length)
  @ArrayUnique({ message: 'must not list an event type twice' })
  @IsIn(SUBSCRIBABLE_EVENT_TYPES, { each: true, message: EVENT_TYPE_REASON })
  event_types?: string[] | null;

  @ApiPropertyOptional({ description: 'false disables the endpoint, true enables it again' })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

export class RotateSecretBody {
  @ApiPropertyOptional({
    description:
      'how long the old secret keeps signing beside the new one (default 24 h, 0 to drop it now)',
    default: 86_400,
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(7 * 86_400)
  overlap_seconds?: number;
}

export class ReplayBody {
  // Read as a Date before the rules run, so its length is checked here: a longer text is no
  // instant and stays text, which @IsDate refuses. The document cannot copy that bound from a
  // rule, hence maxLength below.
  @ApiProperty({
    type: String,
    format: 'date-time',
    maxLength: ISO_DATE_TIME_MAX_LENGTH,
    description: 'replay events that happened at or after this instant (ISO 8601)',
  })
  @Transform(({ value }: { value: unknown }) =>
    value === null ||
    value === undefined ||
    value instanceof Date ||
    (typeof value === 'string' && value.length > ISO_DATE_TIME_MAX_LENGTH)
      ? value
      : new Date(value as string | number),
  )
  @IsDate({ message: 'must be an ISO 8601 date-time' })
  since!: Date;

  @ApiPropertyOptional({
    description: 'also send events this endpoint already received',
    default: false,
  })
  @IsOptional()
  @IsBoolean()
  include_delivered?: boolean;
}

export class RedeliverBody {
  @ApiPropertyOptional({
    description: 'only to this endpoint (default: every endpoint it went to)',
  })
  @IsOptional()
  @IsUUID()
  endpoint_id?: string;
}
