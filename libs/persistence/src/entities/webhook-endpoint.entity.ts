import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAtColumn, InstantColumn, UpdatedAtColumn } from './columns';

/** Where an endpoint came from: an admin through the API, or ORDER_WEBHOOK_URL at start-up. */
export type WebhookEndpointSource = 'admin' | 'environment';

/**
 * One of the shop's webhook receivers. Merchant events whose type it subscribes to are delivered
 * to it, independently of every other endpoint, signed with its secret (Standard Webhooks).
 */
@Entity({ name: 'webhook_endpoints' })
@Index('uq_webhook_endpoints_environment', ['source'], {
  unique: true,
  where: `"source" = 'environment'`,
})
export class WebhookEndpointEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'text' })
  url!: string;

  @Column({ type: 'varchar', length: 200, default: '' })
  description!: string;

  /** The event types it receives; null means every type. */
  @Column({ name: 'event_types', type: 'text', array: true, nullable: true })
  eventTypes!: string[] | null;

  /** `whsec_...`; null for the environment's endpoint, whose secrets stay in its environment. */
  @Column({ type: 'text', nullable: true })
  secret!: string | null;

  /** The secret before the last rotation, still signed with until its expiry. */
  @Column({ name: 'previous_secret', type: 'text', nullable: true })
  previousSecret!: string | null;

  @InstantColumn({ name: 'previous_secret_expires_at', nullable: true })
  previousSecretExpiresAt!: Date | null;

  @Column({ type: 'varchar', length: 16, default: 'admin' })
  source!: WebhookEndpointSource;

  /** Set while the endpoint receives nothing (an admin, a 410, or days of failures). */
  @InstantColumn({ name: 'disabled_at', nullable: true })
  disabledAt!: Date | null;

  @Column({ name: 'disabled_reason', type: 'varchar', length: 200, nullable: true })
  disabledReason!: string | null;

  /** The first failed attempt since the last delivered one: days of these disable the endpoint. */
  @InstantColumn({ name: 'failing_since', nullable: true })
  failingSince!: Date | null;

  @CreatedAtColumn()
  createdAt!: Date;

  @UpdatedAtColumn()
  updatedAt!: Date;
}
