import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import {
  AmountColumn,
  CreatedAtColumn,
  CurrencyColumn,
  InstantColumn,
  JsonColumn,
  UpdatedAtColumn,
} from './columns';

/** The customer fields a link's page asks for. */
export type PaymentLinkField = 'email' | 'phone' | 'name';
export const PAYMENT_LINK_FIELDS: readonly PaymentLinkField[] = ['email', 'phone', 'name'];

/**
 * A payment link: a page anyone with its address can pay through, each payment an order of ours
 * carrying the link's id. `holds` keeps, for a link with a limited number of payments, the
 * references of the orders under way and until when each holds its use (an ISO instant): the
 * reservation counts them with the completed payments under the row's lock, so two customers
 * never take the last use at once.
 */
@Entity({ name: 'payment_links' })
@Index('idx_payment_links_created', ['createdAt', 'id'])
@Index('idx_payment_links_currency_created', ['currency', 'createdAt', 'id'])
@Index('uq_payment_links_reference_prefix', ['referencePrefix'], { unique: true })
export class PaymentLinkEntity {
  /** Also the page's address: random, so not guessed from another link's. */
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** A fixed amount; null when the customer types it (between min and max). */
  @AmountColumn({ nullable: true })
  amount!: string | null;

  @AmountColumn({ name: 'min_amount', nullable: true })
  minAmount!: string | null;

  @AmountColumn({ name: 'max_amount', nullable: true })
  maxAmount!: string | null;

  @CurrencyColumn()
  currency!: string;

  @Column({ name: 'gateway_account', type: 'varchar', length: 20 })
  gatewayAccount!: string;

  @Column({ type: 'varchar', length: 100 })
  description!: string;

  /** Its payments' references are `<prefix>-<n>`: the merchant's, else `link-` and 12 hex digits. */
  @Column({ name: 'reference_prefix', type: 'varchar', length: 30 })
  referencePrefix!: string;

  @InstantColumn({ name: 'expires_at', nullable: true })
  expiresAt!: Date | null;

  /** 1: single use; null: any number. */
  @Column({ name: 'max_payments', type: 'integer', nullable: true })
  maxPayments!: number | null;

  @Column({ name: 'after_payment_url', type: 'text', nullable: true })
  afterPaymentUrl!: string | null;

  @Column({ name: 'after_payment_message', type: 'varchar', length: 500, nullable: true })
  afterPaymentMessage!: string | null;

  /** Which of PAYMENT_LINK_FIELDS the page asks for. */
  @JsonColumn({ default: () => `'["email"]'` })
  collect!: PaymentLinkField[];

  @Column({ type: 'boolean', default: true })
  active!: boolean;

  /** Payments started through the page: the last one's number (its reference's `<n>`). */
  @Column({ name: 'payments_started', type: 'integer', default: 0 })
  paymentsStarted!: number;

  @Column({ name: 'payments_completed', type: 'integer', default: 0 })
  paymentsCompleted!: number;

  @AmountColumn({ name: 'amount_collected', default: 0 })
  amountCollected!: string;

  /** Reference → until when its order holds a use (links with max_payments only). */
  @JsonColumn({ default: () => `'{}'` })
  holds!: Record<string, string>;

  @Column({ name: 'created_by', type: 'varchar', length: 254 })
  createdBy!: string;

  @InstantColumn({ name: 'completed_at', nullable: true })
  completedAt!: Date | null;

  @CreatedAtColumn()
  createdAt!: Date;

  @UpdatedAtColumn()
  updatedAt!: Date;
}
