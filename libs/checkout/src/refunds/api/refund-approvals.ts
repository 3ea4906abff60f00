import { Inject, Injectable } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { DataSource, EntityManager } from 'typeorm';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { isUuid, Money } from '@app/domain';
import { OrderEntity, RefundApprovalEntity, RefundApprovalStatus } from '@app/persistence';
import { CheckoutError } from '../../errors/checkout-error';
import {
  AMOUNT,
  CURRENCY,
  DATE_TIME,
  INTEGER,
  MERCHANT_REFERENCE,
  NULLABLE_DATE_TIME,
  text,
  UUID,
} from '../../http/documented-schemas';
import { newestFirstList } from '../../http/page-cursor';
import { CursorPage } from '../../http/cursor-page';
import { OrderJournal } from '../../orders/order-journal';
import { ATTEMPTS_PER_ORDER_LIMIT } from '../../orders/order-view';
import { answerableFor, Operator, operatorLabel } from '../../operators/operator';
import { REFUND_REASON_MAX_LENGTH } from '../../orders/order-view';

/** A request waits this long for a second person; after it, it is expired and a new one may be made. */
export const APPROVAL_WINDOW_MS = 24 * 3_600_000;
/** Pending requests past their day become expired (narrowed by the caller: an order, an id). */
const EXPIRE_OVERDUE = `UPDATE refund_approvals SET status = 'expired'
  WHERE status = 'pending' AND expires_at <= $1`;

export const APPROVAL_STATUSES: readonly RefundApprovalStatus[] = [
  'pending',
  'approved',
  'declined',
  'expired',
];

export interface RefundApprovalView {
  id: string;
  order_reference: string | null;
  attempt: number | null;
  amount: string;
  currency: string;
  partial: boolean;
  reason: string;
  status: RefundApprovalStatus;
  requested_by: string;
  requested_at: string;
  expires_at: string;
  decided_by: string | null;
  decided_at: string | null;
  decision_reason: string | null;
}

/**
 * Four-eyes refunds: a refund above REFUND_APPROVAL_THRESHOLD (per currency) is recorded as a
 * request (refund_approvals), not a refund; nothing reaches the gateway until another operator
 * with refunds:approve approves it. One pending request per order; a day to decide.
 */
@Injectable()
export class RefundApprovals {
  constructor(
    private readonly dataSource: DataSource,
    private readonly journal: OrderJournal,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  needsApproval(amount: Money): boolean {
    const threshold = this.config.refundApprovalThresholds.get(amount.currency);
    return threshold !== undefined && amount.compare(Money.of(threshold, amount.currency)) > 0;
  }

  /**
   * The order's pending request, if any (under the order's lock): a request past its day is
   * marked expired first, so that it no longer holds the order.
   */
  async pendingFor(manager: EntityManager, orderId: string, now = new Date()) {
    await manager.query(`${EXPIRE_OVERDUE} AND order_id = $2`, [now, orderId]);
    return manager.getRepository(RefundApprovalEntity).findOneBy({ orderId, status: 'pending' });
  }

  /** Records the request and its timeline event (and so its audit row), under the order's lock. */
  async open(
    manager: EntityManager,
    order: OrderEntity,
    request: { amount: Money; partial: boolean; attempt: number | null; reason: string },
    operator: Operator,
    now = new Date(),
  ): Promise<RefundApprovalView> {
    const approvals = manager.getRepository(RefundApprovalEntity);
    const approval = await approvals.save(
      approvals.create({
        orderId: order.id,
        attemptNumber: request.attempt,
        amount: request.amount.toDecimalString(),
        currency: request.amount.currency,
        isPartial: request.partial,
        reason: request.reason,
        status: 'pending',
        requestedById: answerableFor(operator),
        requestedBy: operatorLabel(operator),
        requestedAt: now,
        expiresAt: new Date(now.getTime() + APPROVAL_WINDOW_MS),
      }),
    );
    await this.journal.record(manager, order, {
      type: 'refund_approval_requested',
      source: 'admin',
      actor: approval.requestedBy,
      details: {
        refund_approval_id: approval.id,
        attempt: request.attempt,
        amount: approval.amount,
        currency: approval.currency,
        partial: approval.isPartial,
        reason: approval.reason,
        expires_at: approval.expiresAt.toISOString(),
      },
    });
    return approvalView(approval, order);
  }

  /**
   * Locks a request to decide it: pending, within its day, and (to approve) not the requester's
   * own. An expired one is marked so, and the refusal says it.
   */
  async lockForDecision(
    manager: EntityManager,
    id: string,
    operator: Operator,
    approving: boolean,
    now = new Date(),
  ): Promise<RefundApprovalEntity> {
    const approval = isUuid(id)
      ? await manager
          .getRepository(RefundApprovalEntity)
          .createQueryBuilder('a')
          .setLock('pessimistic_write')
          .where('a.id = :id', { id })
          .getOne()
      : null;
    if (!approval) throw CheckoutError.notFound('refund_approval', id);
    if (approval.status !== 'pending') {
      throw new CheckoutError(
        'refund_approval_not_pending',
        `this refund request is already ${approval.status}`,
      );
    }
    if (approval.expiresAt.getTime() <= now.getTime()) {
      throw new CheckoutError(
        'refund_approval_expired',
        `this refund request expired at ${approval.expiresAt.toISOString()}; ask again`,
      );
    }
    if (approving && operator.kind !== 'person') {
      throw new CheckoutError(
        'forbidden',
        'a refund request is approved by a signed-in person, not by a key',
      );
    }
    if (approving && approval.requestedById === answerableFor(operator)) {
      throw new CheckoutError(
        'self_approval_refused',
        'a refund request needs a second person: its requester cannot approve it',
      );
    }
    return approval;
  }

  async decide(
    manager: EntityManager,
    approval: RefundApprovalEntity,
    order: OrderEntity,
    to: 'approved' | 'declined',
    operator: Operator,
    reason: string | null,
    now = new Date(),
  ): Promise<RefundApprovalView> {
    approval.status = to;
    approval.decidedById = answerableFor(operator);
    approval.decidedBy = operatorLabel(operator);
    approval.decidedAt = now;
    approval.decisionReason = reason;
    await manager.getRepository(RefundApprovalEntity).save(approval);
    await this.journal.record(manager, order, {
      type: `refund_approval_${to}`,
      source: 'admin',
      actor: approval.decidedBy,
      details: {
        refund_approval_id: approval.id,
        requested_by: approval.requestedBy,
        reason,
      },
    });
    return approvalView(approval, order);
  }

  /** An expired request found while deciding it: marked so on its own (the refusal follows). */
  async markExpired(id: string, now = new Date()): Promise<void> {
    await this.dataSource.query(`${EXPIRE_OVERDUE} AND id = $2`, [now, id]);
  }

  async list(
    query: { status?: RefundApprovalStatus; cursor?: string; limit?: number },
    now = new Date(),
  ) {
    const limit = query.limit ?? 50;
    const status = query.status ?? 'pending';
    const pages = newestFirstList('admin-refund-approvals', { status }, query.cursor);
    const rows = this.dataSource
      .getRepository(RefundApprovalEntity)
      .createQueryBuilder('a')
      .leftJoinAndMapOne('a.order', OrderEntity, 'o', 'o.id = a.order_id');
    // A pending request past its day reads as expired (it is marked so when next touched).
    if (status === 'pending') {
      rows.where(`a.status = 'pending' AND a.expires_at > :now`, { now });
    } else if (status === 'expired') {
      rows.where(
        `a.status IN ('pending', 'expired') AND (a.status = 'expired' OR a.expires_at <= :now)`,
        { now },
      );
    } else {
      rows.where('a.status = :status', { status });
    }
    const page = await pages.page(
      rows,
      { alias: 'a', table: 'refund_approvals', column: 'requested_at', at: (a) => a.requestedAt },
      limit,
    );
    return {
      items: page.rows.map((a) =>
        approvalView(a, (a as RefundApprovalEntity & { order?: OrderEntity }).order ?? null, now),
      ),
      limit,
      next_cursor: page.next_cursor,
    };
  }
}

export function approvalView(
  approval: RefundApprovalEntity,
  order: OrderEntity | null,
  now = new Date(),
): RefundApprovalView {
  const expired = approval.status === 'pending' && approval.expiresAt.getTime() <= now.getTime();
  return {
    id: approval.id,
    order_reference: order?.merchantReference ?? null,
    attempt: approval.attemptNumber,
    amount: approval.amount,
    currency: approval.currency,
    partial: approval.isPartial,
    reason: approval.reason,
    status: expired ? 'expired' : approval.status,
    requested_by: approval.requestedBy,
    requested_at: approval.requestedAt.toISOString(),
    expires_at: approval.expiresAt.toISOString(),
    decided_by: approval.decidedBy,
    decided_at: approval.decidedAt?.toISOString() ?? null,
    decision_reason: approval.decisionReason,
  };
}

/** The OpenAPI documentation of RefundApprovalView. */
export class RefundApprovalResponse implements RefundApprovalView {
  @ApiProperty({ ...UUID, description: 'Also the id of the refund made when it is approved' })
  id!: string;

  @ApiProperty({ ...MERCHANT_REFERENCE, nullable: true })
  order_reference!: string | null;

  @ApiProperty({
    ...INTEGER,
    minimum: 1,
    maximum: ATTEMPTS_PER_ORDER_LIMIT,
    nullable: true,
    description: "The attempt whose payment is refunded, for a double payment's refund",
  })
  attempt!: number | null;

  @ApiProperty(AMOUNT)
  amount!: string;

  @ApiProperty(CURRENCY)
  currency!: string;

  @ApiProperty({ type: Boolean })
  partial!: boolean;

  @ApiProperty(text(REFUND_REASON_MAX_LENGTH))
  reason!: string;

  @ApiProperty({ enum: APPROVAL_STATUSES })
  status!: RefundApprovalStatus;

  @ApiProperty({ ...text(254), description: 'The signed-in person (or key) who asked' })
  requested_by!: string;

  @ApiProperty(DATE_TIME)
  requested_at!: string;

  @ApiProperty({ ...DATE_TIME, description: 'A day after the request' })
  expires_at!: string;

  @ApiProperty({ ...text(254), nullable: true })
  decided_by!: string | null;

  @ApiProperty(NULLABLE_DATE_TIME)
  decided_at!: string | null;

  @ApiProperty({ ...text(REFUND_REASON_MAX_LENGTH), nullable: true })
  decision_reason!: string | null;
}

export class RefundApprovalResult {
  @ApiProperty({ type: RefundApprovalResponse })
  refund_approval!: RefundApprovalResponse;
}

export class RefundApprovalPage extends CursorPage(RefundApprovalResponse) {}
