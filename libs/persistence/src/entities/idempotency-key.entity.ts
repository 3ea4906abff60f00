import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn, InstantColumn, JsonColumn } from './columns';

/**
 * The first answer to a request carrying an Idempotency-Key, replayed for 24 h. A row without a
 * response is a request still in flight: a concurrent twin waits for it instead of calling the
 * gateway a second time.
 */
@Entity({ name: 'idempotency_keys' })
@Index('idx_idempotency_keys_expires', ['expiresAt'])
export class IdempotencyKeyEntity {
  /** The shop key's fingerprint (never the key itself) plus the route. */
  @PrimaryColumn({ type: 'varchar', length: 100 })
  scope!: string;

  @PrimaryColumn({ type: 'varchar', length: 255 })
  key!: string;

  @Column({ name: 'request_hash', type: 'varchar', length: 64 })
  requestHash!: string;

  @Column({ name: 'response_status', type: 'integer', nullable: true })
  responseStatus!: number | null;

  @JsonColumn({ name: 'response_body', nullable: true })
  responseBody!: unknown;

  @CreatedAtColumn()
  createdAt!: Date;

  @InstantColumn({ name: 'expires_at' })
  expiresAt!: Date;
}
