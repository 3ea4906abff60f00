import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { InstantColumn, JsonColumn } from './columns';

/** Who acted: a signed-in person, a scoped API key, a bootstrap key from the environment, or nobody known. */
export type AuditActorKind = 'person' | 'api_key' | 'bootstrap_key' | 'anonymous';
/** What came of it: done, refused (authentication, permission, validation) or failed on our side. */
export type AuditOutcome = 'succeeded' | 'refused' | 'failed';

/**
 * The audit trail: one row per administrative act, sign-in, refusal and read of the trail.
 * Append-only (the database refuses UPDATE, DELETE and TRUNCATE) and hash-chained: each row's
 * `hash` covers its content and the previous row's hash, set by the database on insert under a
 * lock, in `seq` order (migrations/1796000000000-AuditTrail.ts). No secret is ever stored.
 */
@Entity({ name: 'audit_events' })
@Index('idx_audit_events_at', ['at', 'id'])
@Index('idx_audit_events_actor', ['actorId', 'at', 'id'])
@Index('idx_audit_events_action', ['action', 'at', 'id'])
@Index('idx_audit_events_target', ['target', 'at', 'id'])
@Index('idx_audit_events_request', ['requestId', 'at', 'id'])
export class AuditEventEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** The chain's order, set with the hash. */
  @Index('uq_audit_events_seq', { unique: true })
  @Column({ type: 'bigint' })
  seq!: string;

  @InstantColumn({ default: () => 'clock_timestamp()' })
  at!: Date;

  @Column({ name: 'actor_kind', type: 'varchar', length: 16 })
  actorKind!: AuditActorKind;

  /** The person's subject, the key's id or name; null for an anonymous caller. */
  @Column({ name: 'actor_id', type: 'varchar', length: 200, nullable: true })
  actorId!: string | null;

  @Column({ name: 'actor_email', type: 'varchar', length: 254, nullable: true })
  actorEmail!: string | null;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  roles!: string[];

  /** e.g. refund.requested, webhook_endpoint.deleted, audit.read, request.refused. */
  @Column({ type: 'varchar', length: 64 })
  action!: string;

  /** What it was done to: an order's reference, a refund's or endpoint's id, a route. */
  @Column({ type: 'varchar', length: 200, nullable: true })
  target!: string | null;

  @JsonColumn({ nullable: true })
  before!: Record<string, unknown> | null;

  @JsonColumn({ nullable: true })
  after!: Record<string, unknown> | null;

  @Column({ type: 'text', nullable: true })
  reason!: string | null;

  @Column({ type: 'varchar', length: 16 })
  outcome!: AuditOutcome;

  /** The HTTP status answered. */
  @Column({ type: 'integer', nullable: true })
  status!: number | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  ip!: string | null;

  @Column({ name: 'user_agent', type: 'varchar', length: 300, nullable: true })
  userAgent!: string | null;

  @Column({ name: 'request_id', type: 'varchar', length: 100, nullable: true })
  requestId!: string | null;

  @Column({ name: 'trace_id', type: 'varchar', length: 32, nullable: true })
  traceId!: string | null;

  @Column({ name: 'previous_hash', type: 'char', length: 64, nullable: true })
  previousHash!: string | null;

  @Column({ type: 'char', length: 64 })
  hash!: string;
}
