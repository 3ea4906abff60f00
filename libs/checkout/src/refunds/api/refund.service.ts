import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { serviceMetrics } from '@app/common';
import {
  canMoveRefund,
  ConfirmationCode,
  isUuid,
  MerchantEventType,
  Money,
  RefundStatus,
} from '@app/domain';
import { GatewayAccounts } from '@app/gateway-client';
import {
  isUniqueViolation,
  OrderEntity,
  OrderRepository,
  PaymentAttemptEntity,
  RefundApprovalEntity,
  RefundEntity,
} from '@app/persistence';
import { CheckoutError } from '../../errors/checkout-error';
import { Operator, operatorLabel } from '../../operators/operator';
import { announcement, OrderJournal } from '../../orders/order-journal';
import { DoublePaymentRefunds, DoublePaymentRefundView } from '../double-payment-refunds';
import { AdminRefundView, toAdminRefundView } from '../refund-admin-view';
import { checkRefund } from '../refund-policy';
import { askForRefund, RefundVerdict } from '../refund-verdict';
import { approvalView, RefundApprovals, RefundApprovalView } from './refund-approvals';

export interface RefundInput {
  amount: string;
  reason: string;
  confirmPartial: boolean;
}

/** A refund made at once, or (above the approval threshold) a request waiting for a second person. */
export type RefundRequestResult =
  { refund: AdminRefundView } | { refund_approval: RefundApprovalView };

type GatewayVerdict = RefundVerdict;

const EVENT_OF: Record<'accepted' | 'rejected' | 'reversed', MerchantEventType> = {
  accepted: 'refund.accepted',
  rejected: 'refund.rejected',
  reversed: 'refund.reversed',
};

/**
 * One refund per payment, made visible and safe: the refund row is written under the order's row
 * lock before the gateway is called (a partial unique index over the rows that are not rejected
 * backs the rule up), so concurrent requests produce exactly one gateway call and the others a 409
 * naming the refund that exists. A rejected attempt does not count: the gateway refuses a second
 * refund only when one exists, so after a rejection a new attempt is allowed.
 */
@Injectable()
export class RefundService {
  private readonly logger = new Logger(RefundService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
    private readonly journal: OrderJournal,
    private readonly accounts: GatewayAccounts,
    private readonly approvals: RefundApprovals,
    private readonly doublePayments: DoublePaymentRefunds,
  ) {}

  async request(
    reference: string,
    input: RefundInput,
    operator: Operator,
  ): Promise<RefundRequestResult> {
    const recorded = await this.record(reference, input, operator);
    if ('approval' in recorded) return { refund_approval: recorded.approval };
    return { refund: await this.send(recorded.order, recorded.refund, operator) };
  }

  /**
   * A double payment's second payment, refunded in full: at once, or (above the threshold) as a
   * request waiting for a second person.
   */
  async requestDoublePayment(
    reference: string,
    attemptNumber: number,
    reason: string,
    operator: Operator,
  ): Promise<{ refund: DoublePaymentRefundView } | { refund_approval: RefundApprovalView }> {
    const found = await this.orders.findByAnyReference(reference);
    if (!found) throw CheckoutError.notFound('order', reference);
    const input = { reason, requestedBy: operatorLabel(operator) };
    // Checked and recorded (a refund, or a request for approval) under the order's lock.
    const recorded = await this.dataSource.transaction(async (manager) => {
      const order = await this.orders.lockById(found.id, manager);
      if (!order) throw CheckoutError.notFound('order', reference);
      await this.refuseIfPending(order, manager);
      const paid = await this.doublePayments.refundable(manager, order, attemptNumber);
      const amount = Money.of(paid.paidAmount ?? order.amount, order.currency);
      if (this.approvals.needsApproval(amount)) {
        const approval = await this.approvals.open(
          manager,
          order,
          { amount, partial: false, attempt: attemptNumber, reason },
          operator,
        );
        return { approval, order: null, attempt: null };
      }
      const attempt = await this.doublePayments.record(
        manager,
        order,
        attemptNumber,
        input,
        input.requestedBy,
      );
      return { approval: null, order, attempt };
    });
    if (recorded.approval) return { refund_approval: recorded.approval };
    return {
      refund: await this.doublePayments.send(
        recorded.order as OrderEntity,
        recorded.attempt as PaymentAttemptEntity,
        input,
        input.requestedBy,
      ),
    };
  }

  /**
   * A second person approves a waiting request: the refund is recorded (taking the request's id)
   * in the approval's transaction, then sent to the gateway once.
   */
  async approve(
    approvalId: string,
    operator: Operator,
  ): Promise<{ refund: AdminRefundView } | { refund: DoublePaymentRefundView }> {
    const forAttempt = isUuid(approvalId)
      ? await this.dataSource.getRepository(RefundApprovalEntity).findOneBy({ id: approvalId })
      : null;
    if (forAttempt?.attemptNumber != null) {
      // A double payment's refund: recorded (with its own checks) in the approval's
      // transaction, then sent once.
      const input = { reason: forAttempt.reason, requestedBy: forAttempt.requestedBy };
      const { order, attempt } = await this.decided(
        approvalId,
        operator,
        true,
        async (manager, locked) => {
          const order = await this.orders.lockById(locked.orderId, manager);
          if (!order) throw CheckoutError.notFound('order', locked.orderId);
          const attempt = await this.doublePayments.record(
            manager,
            order,
            locked.attemptNumber as number,
            input,
            operatorLabel(operator),
          );
          await this.approvals.decide(manager, locked, order, 'approved', operator, null);
          return { order, attempt };
        },
      );
      return {
        refund: await this.doublePayments.send(order, attempt, input, operatorLabel(operator)),
      };
    }
    const { order, refund } = await this.decided(
      approvalId,
      operator,
      true,
      async (manager, approval) => {
        const order = await this.orders.lockById(approval.orderId, manager);
        if (!order) throw CheckoutError.notFound('order', approval.orderId);
        await this.refuseIfRefunded(order, manager);
        // The payment may have changed in the day it waited (a reversal, a resolved refund).
        checkRefund(order, { amount: approval.amount, confirmPartial: approval.isPartial });
        await this.approvals.decide(manager, approval, order, 'approved', operator, null);
        const refunds = manager.getRepository(RefundEntity);
        const refund = await refunds.save(
          refunds.create({
            id: approval.id,
            orderId: order.id,
            confirmationCode: order.confirmationCode as string,
            amount: approval.amount,
            currency: approval.currency,
            isPartial: approval.isPartial,
            reason: approval.reason,
            requestedBy: approval.requestedBy.slice(0, 100),
            adminKeyName: operatorLabel(operator).slice(0, 100),
            status: 'requested',
          }),
        );
        return { order, refund };
      },
    );
    return { refund: await this.send(order, refund, operator) };
  }

  /** The request is declined (by anyone holding refunds:approve, its requester included). */
  async decline(
    approvalId: string,
    operator: Operator,
    reason: string,
  ): Promise<RefundApprovalView> {
    return this.decided(approvalId, operator, false, async (manager, approval) => {
      const order = await this.orders.lockById(approval.orderId, manager);
      if (!order) throw CheckoutError.notFound('order', approval.orderId);
      return this.approvals.decide(manager, approval, order, 'declined', operator, reason);
    });
  }

  private async decided<T>(
    approvalId: string,
    operator: Operator,
    approving: boolean,
    decide: (manager: EntityManager, approval: RefundApprovalEntity) => Promise<T>,
  ): Promise<T> {
    try {
      return await this.dataSource.transaction(async (manager) => {
        const approval = await this.approvals.lockForDecision(
          manager,
          approvalId,
          operator,
          approving,
        );
        return decide(manager, approval);
      });
    } catch (error) {
      if (error instanceof CheckoutError && error.code === 'refund_approval_expired') {
        await this.approvals.markExpired(approvalId);
      }
      throw error;
    }
  }

  private async send(
    order: OrderEntity,
    refund: RefundEntity,
    operator: Operator,
  ): Promise<AdminRefundView> {
    const verdict = await this.ask(order, refund);
    serviceMetrics.refunds.inc({ result: verdict.status });
    const settled = await this.settle(order.id, refund.id, verdict, operatorLabel(operator));
    return toAdminRefundView(settled, order);
  }

  /** An admin records an outcome learnt elsewhere (a timeout left it unknown, or the dashboard). */
  async resolve(
    refundId: string,
    to: 'accepted' | 'rejected' | 'reversed',
    note: string,
    operator: Operator,
  ): Promise<AdminRefundView> {
    const found = await this.findRefund(refundId);
    return this.dataSource.transaction(async (manager) => {
      const order = await this.orders.lockById(found.orderId, manager);
      const refund = await manager.getRepository(RefundEntity).findOneByOrFail({ id: found.id });
      if (!order) throw CheckoutError.notFound('order', found.orderId);
      if (!canMoveRefund(refund.status, to)) {
        throw new CheckoutError(
          'refund_transition_not_allowed',
          `a ${refund.status} refund cannot become ${to}`,
          { refund: toAdminRefundView(refund, order) },
        );
      }
      const from = refund.status;
      this.stamp(refund, to, new Date());
      refund.resolutionNote = note;
      refund.resolvedBy = operatorLabel(operator).slice(0, 100);
      await manager.getRepository(RefundEntity).save(refund);
      await this.journal.record(
        manager,
        order,
        {
          type: `refund_${to}`,
          source: 'admin',
          actor: operatorLabel(operator),
          details: { refund_id: refund.id, from, to, note, resolved_manually: true },
        },
        announcement(EVENT_OF[to], order, refund),
      );
      return toAdminRefundView(refund, order);
    });
  }

  async findRefund(refundId: string): Promise<RefundEntity> {
    const uuid = isUuid(refundId);
    const refund = uuid
      ? await this.dataSource.getRepository(RefundEntity).findOneBy({ id: refundId })
      : null;
    if (!refund) throw CheckoutError.notFound('refund', refundId);
    return refund;
  }

  /** Checks the rules and writes the refund row and its timeline event, under the order's lock. */
  private async record(
    reference: string,
    input: RefundInput,
    operator: Operator,
  ): Promise<{ order: OrderEntity; refund: RefundEntity } | { approval: RefundApprovalView }> {
    const found = await this.orders.findByAnyReference(reference);
    if (!found) throw CheckoutError.notFound('order', reference);
    try {
      return await this.dataSource.transaction(async (manager) => {
        const order = await this.orders.lockById(found.id, manager);
        if (!order) throw CheckoutError.notFound('order', reference);
        await this.refuseIfExists(order, manager);
        const allowed = checkRefund(order, {
          amount: input.amount,
          confirmPartial: input.confirmPartial,
        });
        if (this.approvals.needsApproval(allowed.amount)) {
          const approval = await this.approvals.open(
            manager,
            order,
            {
              amount: allowed.amount,
              partial: allowed.partial,
              attempt: null,
              reason: input.reason,
            },
            operator,
          );
          return { approval };
        }
        const requestedBy = operatorLabel(operator).slice(0, 100);
        const refunds = manager.getRepository(RefundEntity);
        const refund = await refunds.save(
          refunds.create({
            orderId: order.id,
            confirmationCode: order.confirmationCode as string,
            amount: allowed.amount.toDecimalString(),
            currency: allowed.amount.currency,
            isPartial: allowed.partial,
            reason: input.reason,
            requestedBy,
            adminKeyName: requestedBy,
            status: 'requested',
          }),
        );
        await this.journal.record(manager, order, {
          type: 'refund_requested',
          source: 'admin',
          actor: requestedBy,
          details: {
            refund_id: refund.id,
            amount: refund.amount,
            currency: refund.currency,
            partial: refund.isPartial,
            reason: refund.reason,
            requested_by: refund.requestedBy,
          },
        });
        return { order, refund };
      });
    } catch (error) {
      // The lock makes this rare; the unique index still settles any race the lock missed.
      if (isUniqueViolation(error)) await this.refuseIfExists(found);
      throw error;
    }
  }

  /** One open request per payment: a request waiting for approval holds the order. */
  private async refuseIfPending(order: OrderEntity, manager: EntityManager): Promise<void> {
    const pending = await this.approvals.pendingFor(manager, order.id);
    if (pending) {
      throw new CheckoutError(
        'refund_already_requested',
        'this payment already has a refund request waiting for approval',
        { refund_approval: approvalView(pending, order) },
      );
    }
  }

  private async refuseIfExists(order: OrderEntity, manager?: EntityManager): Promise<void> {
    if (manager) await this.refuseIfPending(order, manager);
    await this.refuseIfRefunded(order, manager);
  }

  private async refuseIfRefunded(order: OrderEntity, manager?: EntityManager): Promise<void> {
    // A rejected attempt is no refund at the gateway: a new one may follow it.
    const existing = await this.orders.refundFor(order.id, manager);
    if (!existing || existing.status === 'rejected') return;
    throw new CheckoutError(
      'refund_already_requested',
      'this payment already has a refund; the gateway accepts only one per payment',
      { refund: toAdminRefundView(existing, order) },
    );
  }

  /** The one gateway call. Anything that may have reached the gateway leaves the outcome unknown. */
  private async ask(order: OrderEntity, refund: RefundEntity): Promise<GatewayVerdict> {
    const verdict = await askForRefund(this.accounts.forOrder(order), {
      confirmationCode: refund.confirmationCode as ConfirmationCode,
      amount: Money.of(refund.amount, refund.currency),
      username: refund.requestedBy,
      remarks: refund.reason,
    });
    if (verdict.status === 'unknown') {
      this.logger.warn({ refundId: refund.id }, 'refund outcome unknown');
    }
    return verdict;
  }

  private settle(
    orderId: string,
    refundId: string,
    verdict: GatewayVerdict,
    actor: string,
  ): Promise<RefundEntity> {
    return this.dataSource.transaction(async (manager) => {
      const order = await this.orders.lockById(orderId, manager);
      const refunds = manager.getRepository(RefundEntity);
      const refund = await refunds.findOneByOrFail({ id: refundId });
      if (!order || !canMoveRefund(refund.status, verdict.status)) return refund;
      this.stamp(refund, verdict.status, new Date());
      // The column holds a short status; an error code the gateway spells longer is cut, not fatal.
      refund.gatewayStatus = verdict.gatewayStatus?.slice(0, 16) ?? null;
      refund.gatewayMessage = verdict.message;
      await refunds.save(refund);
      await this.journal.record(
        manager,
        order,
        {
          type:
            verdict.status === 'unknown' ? 'refund_outcome_unknown' : `refund_${verdict.status}`,
          source: 'admin',
          actor,
          details: {
            refund_id: refund.id,
            gateway_status: verdict.gatewayStatus,
            gateway_message: verdict.message,
          },
        },
        verdict.status === 'unknown' ? null : announcement(EVENT_OF[verdict.status], order, refund),
      );
      return refund;
    });
  }

  private stamp(refund: RefundEntity, to: RefundStatus, now: Date): void {
    refund.status = to;
    if (to === 'accepted') refund.acceptedAt = now;
    if (to === 'rejected') refund.rejectedAt = now;
    if (to === 'reversed') refund.reversedAt = now;
  }
}
