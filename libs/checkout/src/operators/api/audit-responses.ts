import { ApiProperty } from '@nestjs/swagger';
import { DATE_TIME, INTEGER, text, UUID } from '../../http/documented-schemas';
import { CursorPage } from '../../http/cursor-page';

/** Documentation of the audit trail's answers (built by AuditListService and AuditTrail). */

const JSON_OBJECT = {
  type: 'object',
  additionalProperties: true,
  nullable: true,
  maxProperties: 50,
} as const;

export class AuditEventResponse {
  @ApiProperty(UUID)
  id!: string;

  @ApiProperty({
    ...INTEGER,
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    format: 'int64',
    description: 'Its place in the chain',
  })
  seq!: number;

  @ApiProperty(DATE_TIME)
  at!: string;

  @ApiProperty({ enum: ['person', 'api_key', 'bootstrap_key', 'anonymous'] })
  actor_kind!: string;

  @ApiProperty({ ...text(200), nullable: true, description: "A key's name or a person's subject" })
  actor_id!: string | null;

  @ApiProperty({ ...text(254), nullable: true })
  actor_email!: string | null;

  @ApiProperty({ type: [String], maxItems: 20, items: { type: 'string', maxLength: 32 } })
  roles!: string[];

  @ApiProperty({ ...text(64), example: 'request.refused' })
  action!: string;

  @ApiProperty({
    ...text(200),
    nullable: true,
    example: 'POST /v1/admin/orders/:reference/refunds',
  })
  target!: string | null;

  @ApiProperty({ ...JSON_OBJECT, description: 'What it was before the change (no secret)' })
  before!: Record<string, unknown> | null;

  @ApiProperty({ ...JSON_OBJECT, description: 'What it is after the change (no secret)' })
  after!: Record<string, unknown> | null;

  @ApiProperty({ ...text(1000), nullable: true })
  reason!: string | null;

  @ApiProperty({ enum: ['succeeded', 'refused', 'failed'] })
  outcome!: string;

  @ApiProperty({
    ...INTEGER,
    maximum: 599,
    nullable: true,
    description: 'The HTTP status answered',
  })
  status!: number | null;

  @ApiProperty({ ...text(64), nullable: true })
  ip!: string | null;

  @ApiProperty({ ...text(300), nullable: true })
  user_agent!: string | null;

  @ApiProperty({ ...text(100), nullable: true })
  request_id!: string | null;

  @ApiProperty({ ...text(32), nullable: true })
  trace_id!: string | null;

  @ApiProperty({ type: String, pattern: '^[0-9a-f]{64}$', maxLength: 64 })
  hash!: string;
}

export class AuditPageResponse extends CursorPage(AuditEventResponse, 'Newest first') {}

export class AuditBrokenEntryResponse {
  @ApiProperty({ ...INTEGER, minimum: 1, maximum: Number.MAX_SAFE_INTEGER, format: 'int64' })
  seq!: number;

  @ApiProperty({ ...UUID, nullable: true })
  id!: string | null;

  @ApiProperty({ ...text(100), example: 'its content was changed after it was written' })
  problem!: string;
}

export class AuditHeadResponse {
  @ApiProperty({ ...INTEGER, minimum: 1, maximum: Number.MAX_SAFE_INTEGER, format: 'int64' })
  seq!: number;

  @ApiProperty({ type: String, pattern: '^[0-9a-f]{64}$', maxLength: 64 })
  hash!: string;
}

export class AuditVerificationResponse {
  @ApiProperty({ description: 'True when every row is as it was written, in its place' })
  ok!: boolean;

  @ApiProperty({
    ...INTEGER,
    maximum: Number.MAX_SAFE_INTEGER,
    format: 'int64',
    description: 'Rows checked before the first broken one (all of them when ok)',
  })
  checked!: number;

  @ApiProperty({
    type: AuditHeadResponse,
    nullable: true,
    description:
      'The last row read: keep it outside the database and give it as seq and hash to a later check, which then finds rows removed from the end or a chain rewritten whole',
  })
  head!: AuditHeadResponse | null;

  @ApiProperty({ type: AuditBrokenEntryResponse, required: false })
  first_broken?: AuditBrokenEntryResponse;
}
