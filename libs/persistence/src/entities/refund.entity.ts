import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { RefundStatus } from '@app/domain';
import {
  AmountColumn,
  BelongsTo,
  CreatedAtColumn,
  CurrencyColumn,
  InstantColumn,
  UpdatedAtColumn,
} from './columns';
import { OrderEntity } from './order.entity';

/**
 * The gateway accepts one refund per confirmation code and refuses every later one, so the rule
 * is a unique constraint here: the row is written before the call and a second one cannot exist.
 * A rejected request is not a refund at the gateway, so the indexes leave rejected rows out and a
 * new attempt may follow a rejection.
 */
const NOT_REJECTED = `"status" <> 'rejected'`;

@Entity({ name: 'refunds' })
@Index('idx_refunds_status_created', ['status', 'createdAt'])
@Index('idx_refunds_order', ['orderId', 'createdAt'])
@Index('idx_refunds_created', ['createdAt', 'id'])
@Index('idx_refunds_currency_created', ['currency', 'createdAt', 'id'])
// When the refund moved money, COALESCE(accepted_at, reversed_at): an expression index, declared
// in migrations/1795800000000-MoneyMovementIndexes.ts (the schema comparison cannot express it).
@Index('idx_refunds_settled_at', { synchronize: false })
// Refunds changed since the overview last summed their hours (migrations/1795900000000-ActivityTotals.ts).
@Index('idx_refunds_updated', ['updatedAt'])
export class RefundEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Index('uq_refunds_order', { unique: true, where: NOT_REJECTED })
  @Column({ name: 'order_id', type: 'uuid' })
  orderId!: string;

  @BelongsTo(() => OrderEntity, 'order_id', 'fk_refunds_order', 'RESTRICT')
  order?: OrderEntity;

  @Index('uq_refunds_confirmation_code', { unique: true, where: NOT_REJECTED })
  @Column({ name: 'confirmation_code', type: 'varchar', length: 500 })
  confirmationCode!: string;

  @AmountColumn()
  amount!: string;

  @CurrencyColumn()
  currency!: string;

  @Column({ name: 'is_partial', type: 'boolean' })
  isPartial!: boolean;

  @Column({ type: 'text' })
  reason!: string;

  @Column({ name: 'requested_by', type: 'varchar', length: 100 })
  requestedBy!: string;

  /** The name of the admin key that asked for it (audit). */
  @Column({ name: 'admin_key_name', type: 'varchar', length: 100 })
  adminKeyName!: string;

  @Column({ type: 'varchar', length: 16, default: 'requested' })
  status!: RefundStatus;

  @Column({ name: 'gateway_status', type: 'varchar', length: 16, nullable: true })
  gatewayStatus!: string | null;

  @Column({ name: 'gateway_message', type: 'text', nullable: true })
  gatewayMessage!: string | null;

  @Column({ name: 'resolution_note', type: 'text', nullable: true })
  resolutionNote!: string | null;

  @Column({ name: 'resolved_by', type: 'varchar', length: 100, nullable: true })
  resolvedBy!: string | null;

  @InstantColumn({ name: 'accepted_at', nullable: true })
  acceptedAt!: Date | null;

  @InstantColumn({ name: 'reversed_at', nullable: true })
  reversedAt!: Date | null;

  @InstantColumn({ name: 'rejected_at', nullable: true })
  rejectedAt!: Date | null;

  @CreatedAtColumn()
  createdAt!: Date;

  @UpdatedAtColumn()
  updatedAt!: Date;
}
