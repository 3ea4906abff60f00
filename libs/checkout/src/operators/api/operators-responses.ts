import { ApiProperty } from '@nestjs/swagger';
import { PERMISSIONS, ROLES } from '@app/domain';
import {
  DATE_TIME,
  NULLABLE_DATE_TIME,
  objectOrNull,
  text,
  UUID,
} from '../../http/documented-schemas';
import { CursorPage } from '../../http/cursor-page';

/** Documentation of the answers about operators: API keys and who is signed in. */

const SCOPES = {
  isArray: true,
  enum: [...PERMISSIONS],
  maxItems: PERMISSIONS.length,
};

export class ApiKeyResponse {
  @ApiProperty(UUID)
  id!: string;

  @ApiProperty(text(100))
  name!: string;

  @ApiProperty({
    ...text(16),
    description: "The secret's first characters",
    example: 'pck_Ab3dE9xQ',
  })
  prefix!: string;

  @ApiProperty(SCOPES)
  scopes!: string[];

  @ApiProperty({ enum: ['active', 'expired', 'revoked'] })
  state!: string;

  @ApiProperty({ ...text(254), description: 'Who made it, as the audit trail names them' })
  created_by!: string;

  @ApiProperty(DATE_TIME)
  created_at!: string;

  @ApiProperty(NULLABLE_DATE_TIME)
  expires_at!: string | null;

  @ApiProperty(NULLABLE_DATE_TIME)
  revoked_at!: string | null;

  @ApiProperty({ ...NULLABLE_DATE_TIME, description: 'Written at most once a minute' })
  last_used_at!: string | null;

  @ApiProperty({ ...UUID, nullable: true, description: 'The key that replaced it when rolled' })
  rolled_to!: string | null;
}

export class ApiKeyCreatedResponse {
  @ApiProperty({ type: ApiKeyResponse })
  api_key!: ApiKeyResponse;

  @ApiProperty({
    ...text(64),
    description: 'The key itself, shown this once: keep it in a secret store',
    example: 'pck_Ab3dE9xQ...',
  })
  secret!: string;
}

export class ApiKeyRolledResponse extends ApiKeyCreatedResponse {
  @ApiProperty({ type: ApiKeyResponse, description: 'The old key, valid until its expires_at' })
  previous!: ApiKeyResponse;
}

export class ApiKeyRevokedResponse {
  @ApiProperty({ type: ApiKeyResponse })
  api_key!: ApiKeyResponse;
}

export class ApiKeyPageResponse extends CursorPage(ApiKeyResponse) {}

export class OperatorResponse {
  @ApiProperty({ enum: ['person', 'api_key', 'bootstrap_key'] })
  kind!: string;

  @ApiProperty({ ...text(200), description: "A person's subject, a key's id or name" })
  id!: string;

  @ApiProperty({ ...text(254), nullable: true })
  email!: string | null;

  @ApiProperty(text(254))
  name!: string;

  @ApiProperty({ isArray: true, enum: [...ROLES], maxItems: ROLES.length })
  roles!: string[];

  @ApiProperty({ ...SCOPES, description: 'What the roles (or the key’s scopes) allow' })
  permissions!: string[];
}

export class ConsoleSessionResponse {
  @ApiProperty(DATE_TIME)
  signed_in_at!: string;

  @ApiProperty({ ...DATE_TIME, description: 'When it ends unless used before' })
  idle_expires_at!: string;

  @ApiProperty({ ...DATE_TIME, description: 'When it ends however active' })
  expires_at!: string;

  @ApiProperty({
    ...text(64),
    description: 'Send it in X-CSRF-Token with every request that changes something',
  })
  csrf_token!: string;
}

export class WhoAmIResponse {
  @ApiProperty({ type: OperatorResponse })
  operator!: OperatorResponse;

  @ApiProperty(objectOrNull(ConsoleSessionResponse))
  session!: ConsoleSessionResponse | null;
}

export class SignedOutResponse {
  @ApiProperty({
    type: Number,
    minimum: 0,
    maximum: 100_000,
    format: 'int32',
    description: 'Sessions ended',
  })
  sessions_ended!: number;
}
