import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { AmountColumn, BelongsTo, InstantColumn } from './columns';
import { CheckoutKind, OrderEntity } from './order.entity';

/** What became of an earlier attempt: the order row holds the current one. */
export type EarlierAttemptStatus = 'failed' | 'cancelled' | 'pending' | 'completed' | 'reversed';

/** The refund of an earlier attempt's payment (a double payment): one per payment, as any. */
export type AttemptRefundStatus = 'requested' | 'accepted' | 'rejected' | 'unknown';

/**
 * An earlier payment attempt of an order: each attempt is its own gateway order (its own id sent
 * to the gateway, its own order_tracking_id). The current attempt lives on the order row; when the
 * customer tries again, the one it replaces moves here. Every id in here still finds its order,
 * and a late outcome of one of them is applied through this row (a completion always counts).
 */
@Entity({ name: 'payment_attempts' })
@Index('uq_payment_attempts_order_number', ['orderId', 'number'], { unique: true })
@Index('idx_payment_attempts_confirmation_code', ['confirmationCode'])
@Index('idx_payment_attempts_paid_at', ['paidAt'], { where: '"paid_at" IS NOT NULL' })
@Index('idx_payment_attempts_refunded_at', ['refundRequestedAt'], {
  where: `"refund_status" = 'accepted'`,
})
export class PaymentAttemptEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'order_id', type: 'uuid' })
  orderId!: string;

  @BelongsTo(() => OrderEntity, 'order_id', 'fk_payment_attempts_order', 'CASCADE')
  order?: OrderEntity;

  /** 1 for the order's first attempt, then 2, 3, … */
  @Column({ type: 'integer' })
  number!: number;

  @Column({ type: 'varchar', length: 16 })
  kind!: CheckoutKind;

  /** The id this attempt was sent to the gateway under (the gateway's merchant reference). */
  @Index('uq_payment_attempts_gateway_reference', { unique: true })
  @Column({ name: 'gateway_reference', type: 'varchar', length: 50 })
  gatewayReference!: string;

  @Index('uq_payment_attempts_order_tracking_id', { unique: true })
  @Column({ name: 'order_tracking_id', type: 'varchar', length: 64, nullable: true })
  orderTrackingId!: string | null;

  @Index('uq_payment_attempts_push_merchant_reference', { unique: true })
  @Column({ name: 'push_merchant_reference', type: 'varchar', length: 100, nullable: true })
  pushMerchantReference!: string | null;

  @Column({ type: 'varchar', length: 16 })
  status!: EarlierAttemptStatus;

  @Column({ name: 'failure_reason', type: 'varchar', length: 100, nullable: true })
  failureReason!: string | null;

  @Column({ name: 'confirmation_code', type: 'varchar', length: 500, nullable: true })
  confirmationCode!: string | null;

  @AmountColumn({ name: 'paid_amount', nullable: true })
  paidAmount!: string | null;

  @InstantColumn({ name: 'paid_at', nullable: true })
  paidAt!: Date | null;

  @InstantColumn({ name: 'started_at' })
  startedAt!: Date;

  /** When the next attempt replaced it. */
  @InstantColumn({ name: 'replaced_at' })
  replacedAt!: Date;

  /** Its payment's refund when it paid an order another attempt paid too; null: none asked. */
  @Column({ name: 'refund_status', type: 'varchar', length: 16, nullable: true })
  refundStatus!: AttemptRefundStatus | null;

  @Column({ name: 'refund_message', type: 'text', nullable: true })
  refundMessage!: string | null;

  @Column({ name: 'refund_requested_by', type: 'varchar', length: 100, nullable: true })
  refundRequestedBy!: string | null;

  @InstantColumn({ name: 'refund_requested_at', nullable: true })
  refundRequestedAt!: Date | null;
}
