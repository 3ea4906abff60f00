import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
} from 'typeorm';
import { INSTANT } from './columns';
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

  @ManyToOne(() => OutboxEventEntity, { onDelete: 'CASCADE', createForeignKeyConstraints: true })
  @JoinColumn({ name: 'event_id', foreignKeyConstraintName: 'fk_webhook_messages_event' })
  event?: OutboxEventEntity;

  @ManyToOne(() => WebhookEndpointEntity, {
    onDelete: 'CASCADE',
    createForeignKeyConstraints: true,
  })
  @JoinColumn({ name: 'endpoint_id', foreignKeyConstraintName: 'fk_webhook_messages_endpoint' })
  endpoint?: WebhookEndpointEntity;

  /** The event's order, copied so an order's messages can wait for each other. */
  @Column({ name: 'order_id', type: 'uuid', nullable: true })
  orderId!: string | null;

  @Column({ name: 'event_created_at', type: INSTANT })
  eventCreatedAt!: Date;

  @Column({ type: 'varchar', length: 16, default: 'pending' })
  state!: WebhookMessageState;

  /** Attempts since the message was (re)queued: the retry schedule's step. */
  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  @Column({ name: 'next_attempt_at', type: INSTANT, default: () => 'now()' })
  nextAttemptAt!: Date;

  /** A worker is sending it until then; after that another may (the first one died). */
  @Column({ name: 'claimed_until', type: INSTANT, nullable: true })
  claimedUntil!: Date | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  @Column({ name: 'delivered_at', type: INSTANT, nullable: true })
  deliveredAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: INSTANT })
  createdAt!: Date;
}
