import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { CursorPageQuery, ISO_DATE_TIME_MAX_LENGTH } from '../../http/page-query';

export class AuditQuery extends CursorPageQuery {
  @ApiPropertyOptional({ description: "the actor's id: a key's name or a person's subject" })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  actor?: string;

  @ApiPropertyOptional({ description: 'e.g. request.refused, audit.read', example: 'audit.read' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  action?: string;

  @ApiPropertyOptional({ description: "what was acted on: an order's reference, an id, a route" })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  target?: string;

  @ApiPropertyOptional({ description: 'the request id (X-Request-Id) a log line names' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  request_id?: string;

  @ApiPropertyOptional({ description: 'at or after (ISO 8601)' })
  @IsOptional()
  @MaxLength(ISO_DATE_TIME_MAX_LENGTH)
  @IsISO8601()
  from?: string;

  @ApiPropertyOptional({ description: 'before (ISO 8601)' })
  @IsOptional()
  @MaxLength(ISO_DATE_TIME_MAX_LENGTH)
  @IsISO8601()
  to?: string;
}

/** A head kept from an earlier verification (both or neither). */
export class AuditVerifyQuery {
  @ApiPropertyOptional({ description: "the kept head's seq", minimum: 1, example: 1042 })
  @ValidateIf((query: AuditVerifyQuery) => query.seq !== undefined || query.hash !== undefined)
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  seq?: number;

  @ApiPropertyOptional({ description: "the kept head's hash", pattern: '^[0-9a-f]{64}$' })
  @ValidateIf((query: AuditVerifyQuery) => query.seq !== undefined || query.hash !== undefined)
  @IsString()
  @MaxLength(64)
  @Matches(/^[0-9a-f]{64}$/)
  hash?: string;
}
