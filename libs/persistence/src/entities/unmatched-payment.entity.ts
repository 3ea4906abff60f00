import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { AmountColumn, CurrencyColumn, InstantColumn, JsonColumn } from './columns';

/**
 * open: money the gateway took that no order of ours carries; matched: settled onto an order of
 * ours, which it paid; refund_requested: adopted as an order of its own and refunded through the
 * refund path (the refund, or its approval, is that order's).
 */
export type UnmatchedPaymentStatus = 'open' | 'matched' | 'refund_requested';
export const UNMATCHED_PAYMENT_STATUSES: readonly UnmatchedPaymentStatus[] = [
  'open',
  'matched',
  'refund_requested',
];

/**
 * A payment without an order: a notification's tracking id the gateway reports as paid, on an
 * account where no order of ours carries its references (a database restored to an earlier
 * point, a payment made on the gateway's dashboard). Kept until an operator settles it, once per
 * (account, tracking id).
 */
@Entity({ name: 'unmatched_payments' })
@Index('uq_unmatched_payments_tracking', ['gatewayAccount', 'orderTrackingId'], { unique: true })
@Index('idx_unmatched_payments_created', ['createdAt', 'id'])
@Index('idx_unmatched_payments_status_created', ['status', 'createdAt', 'id'])
export class UnmatchedPaymentEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** The merchant account that answered the lookup (the one whose IPN URL was notified). */
  @Column({ name: 'gateway_account', type: 'varchar', length: 20 })
  gatewayAccount!: string;

  @Column({ name: 'order_tracking_id', type: 'varchar', length: 100 })
  orderTrackingId!: string;

  @AmountColumn()
  amount!: string;

  @CurrencyColumn()
  currency!: string;

  /** The reference the gateway holds the payment under (not one of ours). */
  @Column({ name: 'merchant_reference', type: 'varchar', length: 100, nullable: true })
  merchantReference!: string | null;

  @Column({ name: 'payment_method', type: 'varchar', length: 64, nullable: true })
  paymentMethod!: string | null;

  @Column({ name: 'payment_account', type: 'varchar', length: 64, nullable: true })
  paymentAccount!: string | null;

  @Column({ name: 'confirmation_code', type: 'varchar', length: 500, nullable: true })
  confirmationCode!: string | null;

  /** When the gateway says the payment was made. */
  @InstantColumn({ name: 'paid_at', nullable: true })
  paidAt!: Date | null;

  /** The lookup's answer as received, for the timeline of the order it ends up on. */
  @JsonColumn({ name: 'gateway_record', nullable: true })
  gatewayRecord!: unknown;

  /** The notification whose lookup found it. */
  @Column({ name: 'notification_id', type: 'uuid', nullable: true })
  notificationId!: string | null;

  @Column({ type: 'varchar', length: 16, default: 'open' })
  status!: UnmatchedPaymentStatus;

  /** The order it paid (matched) or the order it was adopted as (refund_requested). */
  @Column({ name: 'order_id', type: 'uuid', nullable: true })
  orderId!: string | null;

  /** Who settled it, as the audit trail names them, and as people read it. */
  @Column({ name: 'settled_by_id', type: 'varchar', length: 200, nullable: true })
  settledById!: string | null;

  @Column({ name: 'settled_by', type: 'varchar', length: 254, nullable: true })
  settledBy!: string | null;

  @InstantColumn({ name: 'settled_at', nullable: true })
  settledAt!: Date | null;

  @InstantColumn({ name: 'created_at', default: () => 'now()' })
  createdAt!: Date;
}
