import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { InstantColumn } from './columns';

/**
 * A scoped API key for a machine, made through the admin API. The secret is shown once, at
 * creation; only its keyed hash is kept (HMAC-SHA256 under ADMIN_AUTH_SECRET), with its first
 * characters so that people can tell keys apart. A rolled key stays valid until its expires_at.
 */
@Entity({ name: 'api_keys' })
@Index('idx_api_keys_created', ['createdAt', 'id'])
export class ApiKeyEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  /** The secret's first characters (`pck_` and a few more): shown in lists, never enough to use. */
  @Column({ type: 'varchar', length: 16 })
  prefix!: string;

  @Index('uq_api_keys_secret_hash', { unique: true })
  @Column({ name: 'secret_hash', type: 'char', length: 64 })
  secretHash!: string;

  @Column({ type: 'text', array: true })
  scopes!: string[];

  /** Who made it, as people read it. */
  @Column({ name: 'created_by', type: 'varchar', length: 200 })
  createdBy!: string;

  /**
   * Who answers for it: the person (or bootstrap key) that made it, or made the key that made
   * it. A refund it asks for is theirs: they cannot approve it.
   */
  @Column({ name: 'created_by_id', type: 'varchar', length: 200 })
  createdById!: string;

  @InstantColumn({ name: 'created_at', default: () => 'now()' })
  createdAt!: Date;

  @InstantColumn({ name: 'expires_at', nullable: true })
  expiresAt!: Date | null;

  @InstantColumn({ name: 'revoked_at', nullable: true })
  revokedAt!: Date | null;

  @InstantColumn({ name: 'last_used_at', nullable: true })
  lastUsedAt!: Date | null;

  /** The key that replaced it when it was rolled. */
  @Column({ name: 'rolled_to', type: 'uuid', nullable: true })
  rolledTo!: string | null;
}
