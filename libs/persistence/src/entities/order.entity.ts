import { Column, Entity, Index, PrimaryGeneratedColumn, VersionColumn } from 'typeorm';
import { UNPAID_STATUSES, type BillingAddress, type OrderStatus } from '@app/domain';
import { sqlList } from '../sql-list';
import {
  AmountColumn,
  CreatedAtColumn,
  CurrencyColumn,
  InstantColumn,
  JsonColumn,
  UpdatedAtColumn,
} from './columns';

export type CheckoutKind = 'hosted' | 'mobile_money';
/** Where the order stands with the gateway's order-creation call (recorded before it is made). */
export type SubmissionStatus = 'submitting' | 'submitted' | 'rejected' | 'unknown';

export interface SubscriptionTerms {
  accountNumber: string;
  startDate: string;
  endDate: string;
  frequency: string;
}

@Entity({ name: 'orders' })
@Index('idx_orders_status_created', ['status', 'createdAt'])
@Index('idx_orders_due_poll', ['nextPollAt'], { where: `"status" IN ${sqlList(UNPAID_STATUSES)}` })
@Index('idx_orders_created', ['createdAt', 'id'])
@Index('idx_orders_currency_created', ['currency', 'createdAt', 'id'])
@Index('idx_orders_currency_status_created', ['currency', 'status', 'createdAt', 'id'])
@Index('idx_orders_account_created', ['gatewayAccount', 'createdAt', 'id'])
@Index('idx_orders_account_status_created', ['gatewayAccount', 'status', 'createdAt', 'id'])
@Index('idx_orders_updated', ['updatedAt'])
@Index('idx_orders_needs_review', ['createdAt', 'id'], { where: '"needs_review"' })
@Index('idx_orders_payment_link_created', ['paymentLinkId', 'createdAt', 'id'], {
  where: '"payment_link_id" IS NOT NULL',
})
@Index('idx_orders_payment_link_unpaid', ['paymentLinkId'], {
  where: `"payment_link_id" IS NOT NULL AND "status" IN ${sqlList(UNPAID_STATUSES)}`,
})
@Index('idx_orders_pending_created', ['createdAt', 'id'], { where: `"status" = 'pending'` })
@Index('idx_orders_submission_open', ['createdAt', 'id'], {
  where: `"submission_status" IN ('unknown', 'submitting')`,
})
// Finance's reads by the date money moved (migrations/1795800000000-MoneyMovementIndexes.ts).
@Index('idx_orders_paid_at', ['paidAt'], { where: '"paid_at" IS NOT NULL' })
@Index('idx_orders_reversed_at', ['reversedAt'], { where: '"reversed_at" IS NOT NULL' })
@Index('idx_orders_failed_at', ['failedAt'], { where: '"failed_at" IS NOT NULL' })
@Index('idx_orders_cancelled_at', ['cancelledAt'], { where: '"cancelled_at" IS NOT NULL' })
// The overview's expiries by hour (migrations/1795900000000-ActivityTotals.ts).
@Index('idx_orders_expired_at', ['expiredAt'], { where: '"expired_at" IS NOT NULL' })
// Expression indexes (search by lower(email) and by a phone's last nine digits): declared in
// migrations/1795700000000-BoundedReads.ts, which the schema comparison cannot express.
@Index('idx_orders_customer_email_lower', { synchronize: false })
@Index('idx_orders_customer_phone_digits', { synchronize: false })
@Index('idx_orders_msisdn_digits', { synchronize: false })
export class OrderEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** The shop's reference, sent to the gateway as the order id. */
  @Index('uq_orders_merchant_reference', { unique: true })
  @Column({ name: 'merchant_reference', type: 'varchar', length: 50 })
  merchantReference!: string;

  @Index('uq_orders_order_tracking_id', { unique: true })
  @Column({ name: 'order_tracking_id', type: 'varchar', length: 64, nullable: true })
  orderTrackingId!: string | null;

  /** Push answers with a generated reference that does not echo ours; either one finds the order. */
  @Index('uq_orders_push_merchant_reference', { unique: true })
  @Column({ name: 'push_merchant_reference', type: 'varchar', length: 100, nullable: true })
  pushMerchantReference!: string | null;

  @Column({ type: 'varchar', length: 16 })
  kind!: CheckoutKind;

  /** The current payment attempt: 1, then one more each time the customer tries again. */
  @Column({ name: 'attempt_number', type: 'integer', default: 1 })
  attemptNumber!: number;

  /**
   * The id the current attempt was sent to the gateway under; null for a first attempt, which is
   * sent under merchant_reference (a re-used id would silently answer the earlier order).
   */
  @Index('uq_orders_gateway_reference', { unique: true })
  @Column({ name: 'gateway_reference', type: 'varchar', length: 50, nullable: true })
  gatewayReference!: string | null;

  /** When the current attempt started; null for a first attempt (created_at). */
  @InstantColumn({ name: 'attempt_started_at', nullable: true })
  attemptStartedAt!: Date | null;

  @Column({ type: 'varchar', length: 16, default: 'pending' })
  status!: OrderStatus;

  @Column({ name: 'submission_status', type: 'varchar', length: 16, default: 'submitting' })
  submissionStatus!: SubmissionStatus;

  @AmountColumn()
  amount!: string;

  @CurrencyColumn()
  currency!: string;

  /**
   * The merchant account the order was created with (PESAPAL_ACCOUNTS; `default` for the single
   * pair): every later gateway call for it uses this account's credentials.
   */
  @Column({ name: 'gateway_account', type: 'varchar', length: 20, default: 'default' })
  gatewayAccount!: string;

  @Column({ type: 'varchar', length: 100 })
  description!: string;

  @JsonColumn({ default: () => `'{}'` })
  customer!: BillingAddress;

  @Column({ name: 'customer_email', type: 'varchar', length: 254, nullable: true })
  customerEmail!: string | null;

  @Column({ name: 'customer_phone', type: 'varchar', length: 32, nullable: true })
  customerPhone!: string | null;

  @Column({ name: 'return_url', type: 'text', nullable: true })
  returnUrl!: string | null;

  @Column({ name: 'cancel_url', type: 'text', nullable: true })
  cancelUrl!: string | null;

  @Column({ type: 'varchar', length: 100, nullable: true })
  branch!: string | null;

  @Column({ name: 'redirect_mode', type: 'varchar', length: 32, nullable: true })
  redirectMode!: string | null;

  @JsonColumn({ nullable: true })
  subscription!: SubscriptionTerms | null;

  /** The subscriber's account number: recurring notifications name it instead of our reference. */
  @Index('idx_orders_account_number')
  @Column({ name: 'account_number', type: 'varchar', length: 100, nullable: true })
  accountNumber!: string | null;

  @Column({ name: 'ipn_id', type: 'varchar', length: 64, nullable: true })
  ipnId!: string | null;

  @Column({ name: 'redirect_url', type: 'text', nullable: true })
  redirectUrl!: string | null;

  @Column({ type: 'varchar', length: 32, nullable: true })
  msisdn!: string | null;

  @Column({ type: 'varchar', length: 32, nullable: true })
  network!: string | null;

  @Column({ name: 'business_number', type: 'varchar', length: 64, nullable: true })
  businessNumber!: string | null;

  @Column({ name: 'push_account_number', type: 'varchar', length: 100, nullable: true })
  pushAccountNumber!: string | null;

  @Index('idx_orders_confirmation_code')
  @Column({ name: 'confirmation_code', type: 'varchar', length: 500, nullable: true })
  confirmationCode!: string | null;

  @Column({ name: 'payment_method', type: 'varchar', length: 64, nullable: true })
  paymentMethod!: string | null;

  @Column({ name: 'payment_account', type: 'varchar', length: 64, nullable: true })
  paymentAccount!: string | null;

  /** What the gateway reports as paid; compared with amount/currency before completing. */
  @AmountColumn({ name: 'paid_amount', nullable: true })
  paidAmount!: string | null;

  @CurrencyColumn({ name: 'paid_currency', nullable: true })
  paidCurrency!: string | null;

  /** The gateway's reason for a failure, e.g. request_terminated_by_user. */
  @Column({ name: 'failure_reason', type: 'varchar', length: 100, nullable: true })
  failureReason!: string | null;

  @JsonColumn({ name: 'gateway_error', nullable: true })
  gatewayError!: { code: string | null; messages: string[] } | null;

  @Column({ name: 'needs_review', type: 'boolean', default: false })
  needsReview!: boolean;

  @Column({ name: 'review_reason', type: 'text', nullable: true })
  reviewReason!: string | null;

  @InstantColumn({ name: 'paid_at', nullable: true })
  paidAt!: Date | null;

  @InstantColumn({ name: 'failed_at', nullable: true })
  failedAt!: Date | null;

  @InstantColumn({ name: 'cancelled_at', nullable: true })
  cancelledAt!: Date | null;

  @InstantColumn({ name: 'reversed_at', nullable: true })
  reversedAt!: Date | null;

  @InstantColumn({ name: 'expired_at', nullable: true })
  expiredAt!: Date | null;

  /** When the poller should next look this order up; null once it is final. */
  @InstantColumn({ name: 'next_poll_at', nullable: true })
  nextPollAt!: Date | null;

  @Column({ name: 'poll_attempts', type: 'integer', default: 0 })
  pollAttempts!: number;

  @InstantColumn({ name: 'last_checked_at', nullable: true })
  lastCheckedAt!: Date | null;

  /** The payment link it was paid through, if any (payment_links.id). */
  @Column({ name: 'payment_link_id', type: 'uuid', nullable: true })
  paymentLinkId!: string | null;

  @VersionColumn()
  version!: number;

  @CreatedAtColumn()
  createdAt!: Date;

  @UpdatedAtColumn()
  updatedAt!: Date;
}
