import {
  JoinColumn,
  ManyToOne,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { INSTANT } from './columns';
import { OutboxEventEntity } from './outbox-event.entity';

/** One row per attempt to deliver a merchant event to the shop's webhook URL. */
@Entity({ name: 'webhook_deliveries' })
@Index('idx_webhook_deliveries_event', ['eventId', 'createdAt'])
export class WebhookDeliveryEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'event_id', type: 'uuid' })
  eventId!: string;

  @ManyToOne(() => OutboxEventEntity, { onDelete: 'RESTRICT', createForeignKeyConstraints: true })
  @JoinColumn({ name: 'event_id', foreignKeyConstraintName: 'fk_webhook_deliveries_event' })
  event?: OutboxEventEntity;

  @Column({ type: 'integer' })
  attempt!: number;

  @Column({ type: 'text' })
  url!: string;

  @Column({ name: 'response_status', type: 'integer', nullable: true })
  responseStatus!: number | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs!: number;

  @CreateDateColumn({ name: 'created_at', type: INSTANT })
  createdAt!: Date;
}
