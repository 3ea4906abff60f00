import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { BelongsTo, CreatedAtColumn, InstantColumn } from './columns';
import { OutboxEventEntity } from './outbox-event.entity';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';

/** pending (to be sent, or retried), delivered (a 2xx came back), failed (every attempt used). */
export type WebhookMessageState = 'pending' | 'delivered' | 'failed';

/**
 * One merchant event on its way to one endpoint: its own retries, its own state. The dispatcher
 * sends an order's messages to an endpoint in the order the events happened.
 */
@Entity({ name: 'webhook_messages' })
@Index('idx_webhook_messages_due', ['nextAttemptAt'], { where: `"state" = 'pending'` })
@Index('idx_webhook_messages_order_line', ['endpointId', 'orderId', 'eventCreatedAt'], {
  where: `"state" = 'pending'`,
})
export class WebhookMessageEntity {
  @PrimaryColumn({ name: 'event_id', type: 'uuid' })
  eventId!: string;

  @PrimaryColumn({ name: 'endpoint_id', type: 'uuid' })
  endpointId!: string;

  @BelongsTo(() => OutboxEventEntity, 'event_id', 'fk_webhook_messages_event', 'CASCADE')
  event?: OutboxEventEntity;

  @BelongsTo(() => WebhookEndpointEntity, 'endpoint_id', 'fk_webhook_messages_endpoint', 'CASCADE')
  endpoint?: WebhookEndpointEntity;

  /** The event's order, copied so an order's messages can wait for each other. */
  @Column({ name: 'order_id', type: 'uuid', nullable: true })
  orderId!: string | null;

  @InstantColumn({ name: 'event_created_at' })
  eventCreatedAt!: Date;

  @Column({ type: 'varchar', length: 16, default: 'pending' })
  state!: WebhookMessageState;

  /** Attempts since the message was (re)queued: the retry schedule's step. */
  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  @InstantColumn({ name: 'next_attempt_at', default: () => 'now()' })
  nextAttemptAt!: Date;

  /** A worker is sending it until then; after that another may (the first one died). */
  @InstantColumn({ name: 'claimed_until', nullable: true })
  claimedUntil!: Date | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  @InstantColumn({ name: 'delivered_at', nullable: true })
  deliveredAt!: Date | null;

  @CreatedAtColumn()
  createdAt!: Date;
}
