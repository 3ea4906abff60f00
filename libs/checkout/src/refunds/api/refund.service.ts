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
import { GatewayClient } from '@app/gateway-client';
import { isUniqueViolation, OrderEntity, OrderRepository, RefundEntity } from '@app/persistence';
import { ApiKeyIdentity } from '../../http/api-keys';
import { CheckoutError } from '../../errors/checkout-error';
import { announcement, OrderJournal } from '../../orders/order-journal';
import { AdminRefundView, toAdminRefundView } from '../refund-admin-view';
import { checkRefund } from '../refund-policy';
import { askForRefund, RefundVerdict } from '../refund-verdict';

export interface RefundInput {
  amount: string;
  reason: string;
  requestedBy: string;
  confirmPartial: boolean;
}

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
    private readonly gateway: GatewayClient,
  ) {}

  async request(
    reference: string,
    input: RefundInput,
    caller: ApiKeyIdentity,
  ): Promise<AdminRefundView> {
    const { order, refund } = await this.record(reference, input, caller);
    const verdict = await this.ask(refund);
    serviceMetrics.refunds.inc({ result: verdict.status });
    const settled = await this.settle(order.id, refund.id, verdict, caller.name);
    return toAdminRefundView(settled, order);
  }

  /** An admin records an outcome learnt elsewhere (a timeout left it unknown, or the dashboard). */
  async resolve(
    refundId: string,
    to: 'accepted' | 'rejected' | 'reversed',
    note: string,
    caller: ApiKeyIdentity,
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
      refund.resolvedBy = caller.name;
      await manager.getRepository(RefundEntity).save(refund);
      await this.journal.record(
        manager,
        order,
        {
          type: `refund_${to}`,
          source: 'admin',
          actor: caller.name,
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
    caller: ApiKeyIdentity,
  ): Promise<{ order: OrderEntity; refund: RefundEntity }> {
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
        const refunds = manager.getRepository(RefundEntity);
        const refund = await refunds.save(
          refunds.create({
            orderId: order.id,
            confirmationCode: order.confirmationCode as string,
            amount: allowed.amount.toDecimalString(),
            currency: allowed.amount.currency,
            isPartial: allowed.partial,
            reason: input.reason,
            requestedBy: input.requestedBy,
            adminKeyName: caller.name,
            status: 'requested',
          }),
        );
        await this.journal.record(manager, order, {
          type: 'refund_requested',
          source: 'admin',
          actor: caller.name,
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

  private async refuseIfExists(order: OrderEntity, manager?: EntityManager): Promise<void> {
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
  private async ask(refund: RefundEntity): Promise<GatewayVerdict> {
    const verdict = await askForRefund(this.gateway, {
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
