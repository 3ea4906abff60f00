import {
  JoinColumn,
  ManyToOne,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { AMOUNT_COLUMN, INSTANT } from './columns';
import { OrderEntity } from './order.entity';

/** A scheduled charge of a subscription, recorded against the first order without touching it. */
@Entity({ name: 'subscription_charges' })
@Index('idx_subscription_charges_order', ['orderId', 'chargedAt'])
export class SubscriptionChargeEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'order_id', type: 'uuid' })
  orderId!: string;

  @ManyToOne(() => OrderEntity, { onDelete: 'RESTRICT', createForeignKeyConstraints: true })
  @JoinColumn({ name: 'order_id', foreignKeyConstraintName: 'fk_subscription_charges_order' })
  order?: OrderEntity;

  @Column({ name: 'account_number', type: 'varchar', length: 100 })
  accountNumber!: string;

  @Column({ name: 'order_tracking_id', type: 'varchar', length: 64 })
  orderTrackingId!: string;

  @Index('uq_subscription_charges_confirmation_code', { unique: true })
  @Column({ name: 'confirmation_code', type: 'varchar', length: 100 })
  confirmationCode!: string;

  @Column({ ...AMOUNT_COLUMN })
  amount!: string;

  @Column({ type: 'varchar', length: 3 })
  currency!: string;

  @Column({ name: 'charged_at', type: INSTANT })
  chargedAt!: Date;

  @Column({ name: 'subscription_info', type: 'jsonb', nullable: true })
  subscriptionInfo!: Record<string, unknown> | null;

  @Column({ name: 'gateway_record', type: 'jsonb' })
  gatewayRecord!: unknown;

  @CreateDateColumn({ name: 'created_at', type: INSTANT })
  createdAt!: Date;
}
