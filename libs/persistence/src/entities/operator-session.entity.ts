import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { InstantColumn } from './columns';

/**
 * A person signed in to the console through the identity provider. The browser holds a random
 * token in an HttpOnly cookie; only its SHA-256 is kept, so a copy of this table signs nobody in.
 * A session ends when revoked, idle for ADMIN_SESSION_IDLE_MINUTES, or at expires_at.
 */
@Entity({ name: 'operator_sessions' })
@Index('idx_operator_sessions_subject', ['subject'], { where: 'revoked_at IS NULL' })
export class OperatorSessionEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Index('uq_operator_sessions_token_hash', { unique: true })
  @Column({ name: 'token_hash', type: 'char', length: 64 })
  tokenHash!: string;

  /** The provider's `sub` for the person. */
  @Column({ type: 'varchar', length: 200 })
  subject!: string;

  @Column({ type: 'varchar', length: 254, nullable: true })
  email!: string | null;

  @Column({ name: 'display_name', type: 'varchar', length: 200, nullable: true })
  displayName!: string | null;

  /** Roles mapped from the provider's groups at sign-in. */
  @Column({ type: 'text', array: true })
  roles!: string[];

  @InstantColumn({ name: 'created_at', default: () => 'now()' })
  createdAt!: Date;

  @InstantColumn({ name: 'last_seen_at', default: () => 'now()' })
  lastSeenAt!: Date;

  /** The absolute limit, however active the session (retention removes it a day after). */
  @Index('idx_operator_sessions_expires')
  @InstantColumn({ name: 'expires_at' })
  expiresAt!: Date;

  @InstantColumn({ name: 'revoked_at', nullable: true })
  revokedAt!: Date | null;
}
