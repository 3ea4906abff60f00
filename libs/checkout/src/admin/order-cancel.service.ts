import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { isCancellable, OrderTrackingId } from '@app/domain';
import { GatewayClient, GatewayUnavailableError } from '@app/gateway-client';
import { OrderEntity, OrderRepository } from '@app/persistence';
import { ApiKeyIdentity } from '../http/api-keys';
import { CheckoutError } from '../http/checkout-error';
import { OrderJournal } from '../orders/order-journal';

/**
 * Cancels an unpaid order at the gateway, then here. The gateway call is made outside the row
 * lock (no lock is held across a network call); the state is re-checked under the lock after,
 * so a payment that landed meanwhile is flagged rather than overwritten.
 */
@Injectable()
export class OrderCancelService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
    private readonly journal: OrderJournal,
    private readonly gateway: GatewayClient,
  ) {}

  async cancel(order: OrderEntity, caller: ApiKeyIdentity, note?: string): Promise<OrderEntity> {
    this.assertCancellable(order);
    // An order the gateway never received has nothing to cancel there.
    const neverSubmitted = !order.orderTrackingId && order.submissionStatus === 'rejected';
    let gatewayMessage: string | null = null;
    if (!neverSubmitted) {
      if (!order.orderTrackingId) {
        throw CheckoutError.conflict(
          'order_not_cancellable',
          'the gateway has not told us this order’s tracking id yet; sync it first',
          { order_status: order.status, submission_status: order.submissionStatus },
        );
      }
      try {
        const answer = await this.gateway.cancelOrder(order.orderTrackingId as OrderTrackingId);
        gatewayMessage = answer.message;
        if (!answer.accepted) {
          await this.note(order, 'cancel_refused', caller, { gateway_message: answer.message });
          throw CheckoutError.conflict(
            'cancel_refused',
            `the gateway refused to cancel: ${answer.message}`,
            { gateway_message: answer.message },
          );
        }
      } catch (error) {
        if (error instanceof GatewayUnavailableError) {
          await this.note(order, 'cancel_outcome_unknown', caller, { error: error.message });
        }
        throw error;
      }
    }
    return this.dataSource.transaction(async (manager) => {
      const locked = await this.orders.lockById(order.id, manager);
      if (!locked) throw CheckoutError.notFound('order', order.merchantReference);
      if (!isCancellable(locked.status)) {
        // Paid between our check and the gateway's answer: a person must look at it.
        throw CheckoutError.conflict(
          'order_not_cancellable',
          `the order became ${locked.status} while it was being cancelled`,
          { order_status: locked.status },
        );
      }
      const from = locked.status;
      locked.status = 'cancelled';
      locked.cancelledAt = new Date();
      locked.nextPollAt = null;
      await manager.getRepository(OrderEntity).save(locked);
      await this.journal.record(manager, locked, {
        type: 'status_changed',
        source: 'admin',
        actor: caller.name,
        fromStatus: from,
        toStatus: 'cancelled',
        details: { gateway_message: gatewayMessage, note: note ?? null },
      });
      await this.journal.announce(manager, locked, 'order.cancelled');
      return locked;
    });
  }

  private assertCancellable(order: OrderEntity): void {
    if (!isCancellable(order.status)) {
      throw CheckoutError.conflict(
        'order_not_cancellable',
        `only unpaid orders can be cancelled; this order is ${order.status}`,
        { order_status: order.status },
      );
    }
  }

  private async note(
    order: OrderEntity,
    type: string,
    caller: ApiKeyIdentity,
    details: Record<string, unknown>,
  ): Promise<void> {
    await this.dataSource.transaction((manager) =>
      this.journal.record(manager, order, { type, source: 'admin', actor: caller.name, details }),
    );
  }
}
