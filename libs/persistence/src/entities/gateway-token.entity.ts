import { Column, Entity, PrimaryColumn } from 'typeorm';
import { InstantColumn } from './columns';

/**
 * The gateway's bearer token, shared by every process of the service when queues run on
 * PostgreSQL (with Redis, Redis holds it): one row per credential set, keyed by a hash of the
 * gateway address and consumer key, with the refresh lock that lets one process log in at a time.
 * The table is UNLOGGED: a crash loses only a token, and the next call logs in again.
 */
@Entity({ name: 'gateway_tokens' })
export class GatewayTokenEntity {
  @PrimaryColumn({ type: 'varchar', length: 100 })
  key!: string;

  @Column({ type: 'text', nullable: true })
  token!: string | null;

  @InstantColumn({ name: 'expires_at', nullable: true })
  expiresAt!: Date | null;

  @InstantColumn({ name: 'issued_at', nullable: true })
  issuedAt!: Date | null;

  @Column({ name: 'lock_owner', type: 'uuid', nullable: true })
  lockOwner!: string | null;

  @InstantColumn({ name: 'locked_until', nullable: true })
  lockedUntil!: Date | null;
}
