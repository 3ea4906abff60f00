import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import {
  AmountColumn,
  BelongsTo,
  CreatedAtColumn,
  CurrencyColumn,
  InstantColumn,
  JsonColumn,
} from './columns';
import { OrderEntity } from './order.entity';

/** A scheduled charge of a subscription, recorded against the first order without touching it. */
@Entity({ name: 'subscription_charges' })
@Index('idx_subscription_charges_order', ['orderId', 'chargedAt'])
export class SubscriptionChargeEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'order_id', type: 'uuid' })
  orderId!: string;

  @BelongsTo(() => OrderEntity, 'order_id', 'fk_subscription_charges_order', 'RESTRICT')
  order?: OrderEntity;

  @Column({ name: 'account_number', type: 'varchar', length: 100 })
  accountNumber!: string;

  @Column({ name: 'order_tracking_id', type: 'varchar', length: 64 })
  orderTrackingId!: string;

  @Index('uq_subscription_charges_confirmation_code', { unique: true })
  @Column({ name: 'confirmation_code', type: 'varchar', length: 500 })
  confirmationCode!: string;

  @AmountColumn()
  amount!: string;

  @CurrencyColumn()
  currency!: string;

  @InstantColumn({ name: 'charged_at' })
  chargedAt!: Date;

  @JsonColumn({ name: 'subscription_info', nullable: true })
  subscriptionInfo!: Record<string, unknown> | null;

  @JsonColumn({ name: 'gateway_record' })
  gatewayRecord!: unknown;

  @CreatedAtColumn()
  createdAt!: Date;
}
