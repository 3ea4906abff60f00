import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAtColumn, InstantColumn, JsonColumn } from './columns';

/**
 * Merchant events (order.completed, refund.accepted, ...) written in the same transaction as the
 * state change they announce, then relayed to the delivery queue: a crash between the two neither
 * drops nor invents an event. The id is the event id the shop sees, stable across retries.
 */
@Entity({ name: 'outbox_events' })
@Index('idx_outbox_events_unrelayed', ['createdAt'], { where: '"relayed_at" IS NULL' })
@Index('idx_outbox_events_order', ['orderId'])
@Index('idx_outbox_events_created', ['createdAt', 'id'])
@Index('idx_outbox_events_type_created', ['type', 'createdAt', 'id'])
@Index('idx_outbox_events_undelivered', ['createdAt', 'id'], { where: '"delivered_at" IS NULL' })
export class OutboxEventEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'order_id', type: 'uuid', nullable: true })
  orderId!: string | null;

  @Column({ type: 'varchar', length: 48 })
  type!: string;

  @JsonColumn()
  payload!: Record<string, unknown>;

  /**
   * The statement's clock, not the transaction's: two events of one order written in one
   * transaction still have an order, which their deliveries follow.
   */
  @CreatedAtColumn({ default: () => 'clock_timestamp()' })
  createdAt!: Date;

  /** Set once the event is handed to the endpoints that subscribe to it (webhook_messages). */
  @InstantColumn({ name: 'relayed_at', nullable: true })
  relayedAt!: Date | null;

  /** Set when every endpoint it was handed to has answered 2xx. */
  @InstantColumn({ name: 'delivered_at', nullable: true })
  deliveredAt!: Date | null;

  /** Attempts across all its endpoints. */
  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;
}
