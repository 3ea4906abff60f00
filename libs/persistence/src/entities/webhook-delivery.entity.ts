import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { BelongsTo, CreatedAtColumn } from './columns';
import { OutboxEventEntity } from './outbox-event.entity';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';

/** One row per attempt to deliver a merchant event to one of the shop's webhook endpoints. */
@Entity({ name: 'webhook_deliveries' })
@Index('idx_webhook_deliveries_event', ['eventId', 'createdAt'])
// The overview's attempts by hour (migrations/1795900000000-ActivityTotals.ts).
@Index('idx_webhook_deliveries_created', ['createdAt'])
export class WebhookDeliveryEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'event_id', type: 'uuid' })
  eventId!: string;

  @BelongsTo(() => OutboxEventEntity, 'event_id', 'fk_webhook_deliveries_event', 'RESTRICT')
  event?: OutboxEventEntity;

  /** The endpoint it went to; null for attempts made before endpoints were kept as data. */
  @Column({ name: 'endpoint_id', type: 'uuid', nullable: true })
  endpointId!: string | null;

  @BelongsTo(
    () => WebhookEndpointEntity,
    'endpoint_id',
    'fk_webhook_deliveries_endpoint',
    'SET NULL',
  )
  endpoint?: WebhookEndpointEntity;

  @Column({ type: 'integer' })
  attempt!: number;

  @Column({ type: 'text' })
  url!: string;

  @Column({ name: 'response_status', type: 'integer', nullable: true })
  responseStatus!: number | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  /** The start of what the endpoint answered, for an admin reading why it failed. */
  @Column({ name: 'response_excerpt', type: 'text', nullable: true })
  responseExcerpt!: string | null;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs!: number;

  @CreatedAtColumn()
  createdAt!: Date;
}
