import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { BelongsTo, CreatedAtColumn, JsonColumn } from './columns';
import { OrderEntity } from './order.entity';

export type EventSource = 'api' | 'ipn' | 'poll' | 'return' | 'admin' | 'worker';

/**
 * The order's timeline: every change appends one row, with the gateway record that caused it.
 * A status change to a given state happens at most once per payment attempt of the order (a
 * unique partial index), so duplicate or concurrent notifications cannot record a transition twice.
 */
@Entity({ name: 'order_events' })
@Index('idx_order_events_order', ['orderId', 'createdAt'])
@Index('uq_order_events_transition', ['orderId', 'attempt', 'toStatus'], {
  unique: true,
  where: `"type" = 'status_changed'`,
})
export class OrderEventEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** The order's payment attempt this happened in (its attempt_number then). */
  @Column({ type: 'integer', default: 1 })
  attempt!: number;

  @Column({ name: 'order_id', type: 'uuid' })
  orderId!: string;

  @BelongsTo(() => OrderEntity, 'order_id', 'fk_order_events_order', 'RESTRICT')
  order?: OrderEntity;

  /** e.g. created, submitted, submission_failed, status_changed, flagged_for_review, refund_requested */
  @Column({ type: 'varchar', length: 48 })
  type!: string;

  @Column({ name: 'from_status', type: 'varchar', length: 16, nullable: true })
  fromStatus!: string | null;

  @Column({ name: 'to_status', type: 'varchar', length: 16, nullable: true })
  toStatus!: string | null;

  @Column({ type: 'varchar', length: 16 })
  source!: string;

  /** Who acted: an admin key's name, or null for the service itself. */
  @Column({ type: 'varchar', length: 100, nullable: true })
  actor!: string | null;

  @JsonColumn({ name: 'gateway_record', nullable: true })
  gatewayRecord!: unknown;

  @JsonColumn({ default: () => `'{}'` })
  details!: Record<string, unknown>;

  @CreatedAtColumn()
  createdAt!: Date;
}
