import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { AmountColumn, InstantColumn } from './columns';

export type RefundApprovalStatus = 'pending' | 'approved' | 'declined' | 'expired';

/**
 * A refund above REFUND_APPROVAL_THRESHOLD waiting for a second person. No refund row exists and
 * nothing reaches the gateway until another refund approver approves it; the refund then made
 * takes this request's id. One pending request per order (partial unique index).
 */
@Entity({ name: 'refund_approvals' })
@Index('uq_refund_approvals_pending', ['orderId'], { unique: true, where: `status = 'pending'` })
@Index('idx_refund_approvals_status', ['status', 'requestedAt', 'id'])
export class RefundApprovalEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'order_id', type: 'uuid' })
  orderId!: string;

  /** The attempt whose payment is refunded when it is not the order's own (a double payment). */
  @Column({ name: 'attempt_number', type: 'integer', nullable: true })
  attemptNumber!: number | null;

  @AmountColumn()
  amount!: string;

  @Column({ type: 'char', length: 3 })
  currency!: string;

  @Column({ name: 'is_partial', type: 'boolean', default: false })
  isPartial!: boolean;

  @Column({ type: 'text' })
  reason!: string;

  @Column({ type: 'varchar', length: 16, default: 'pending' })
  status!: RefundApprovalStatus;

  /** The requester as the audit trail names them (a person's subject, a key's id). */
  @Column({ name: 'requested_by_id', type: 'varchar', length: 200 })
  requestedById!: string;

  /** How the requester reads to people (email or name). */
  @Column({ name: 'requested_by', type: 'varchar', length: 254 })
  requestedBy!: string;

  @InstantColumn({ name: 'requested_at', default: () => 'now()' })
  requestedAt!: Date;

  @InstantColumn({ name: 'expires_at' })
  expiresAt!: Date;

  @Column({ name: 'decided_by_id', type: 'varchar', length: 200, nullable: true })
  decidedById!: string | null;

  @Column({ name: 'decided_by', type: 'varchar', length: 254, nullable: true })
  decidedBy!: string | null;

  @InstantColumn({ name: 'decided_at', nullable: true })
  decidedAt!: Date | null;

  @Column({ name: 'decision_reason', type: 'text', nullable: true })
  decisionReason!: string | null;
}
