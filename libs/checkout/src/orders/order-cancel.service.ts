import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { isCancellable, OrderTrackingId } from '@app/domain';
import {
  GatewayAcknowledgement,
  GatewayAccounts,
  GatewayUnavailableError,
} from '@app/gateway-client';
import { EventSource, OrderEntity, OrderRepository } from '@app/persistence';
import { CheckoutError } from '../errors/checkout-error';
import { announcement, OrderJournal } from './order-journal';
import { OrderSyncService } from './order-sync.service';

/** Who asked for the cancel: the shop ('api', its key name) or an operator ('admin', with a note). */
export interface CancelRequest {
  source: EventSource;
  actor: string;
  note?: string;
}

/** How an unpaid order ends once the gateway has cancelled it: on request, or at the poll horizon. */
export interface Closure {
  to: 'cancelled' | 'expired';
  source: EventSource;
  actor?: string | null;
  details: Record<string, unknown>;
}

/**
 * Cancels an unpaid order at the gateway, then records it under the order's row lock. No lock is
 * held across the network call; the state is re-checked under the lock after, so a payment that
 * landed meanwhile wins and is answered as a conflict.
 */
@Injectable()
export class OrderCancelService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
    private readonly accounts: GatewayAccounts,
    private readonly sync: OrderSyncService,
    private readonly journal: OrderJournal,
  ) {}

  /** Cancelling a cancelled order changes nothing and answers it as it is. */
  async cancel(order: OrderEntity, request: CancelRequest): Promise<OrderEntity> {
    if (order.status === 'cancelled') return order;
    assertCancellable(order);
    let gatewayMessage: string | null = null;
    // An order the gateway never received has nothing to cancel there.
    const neverSubmitted = !order.orderTrackingId && order.submissionStatus === 'rejected';
    if (!neverSubmitted) gatewayMessage = await this.cancelAtGateway(order, request);
    const { order: row } = await this.close(order.id, {
      to: 'cancelled',
      source: request.source,
      actor: request.actor,
      details: { gateway_message: gatewayMessage, ...(request.note ? { note: request.note } : {}) },
    });
    if (!row) throw CheckoutError.notFound('order', order.merchantReference);
    if (row.status !== 'cancelled') assertCancellable(row);
    return row;
  }

  /**
   * Marks a still-unpaid order cancelled or expired, with its timeline event and merchant event,
   * under the row lock. `closed` is false when the order was missing or no longer unpaid.
   */
  close(
    orderId: string,
    closure: Closure,
  ): Promise<{ order: OrderEntity | null; closed: boolean }> {
    return this.dataSource.transaction(async (manager) => {
      const order = await this.orders.lockById(orderId, manager);
      if (!order || !isCancellable(order.status)) return { order, closed: false };
      const from = order.status;
      order.status = closure.to;
      if (closure.to === 'cancelled') order.cancelledAt = new Date();
      else order.expiredAt = new Date();
      order.nextPollAt = null;
      await manager.getRepository(OrderEntity).save(order);
      await this.journal.record(
        manager,
        order,
        {
          type: 'status_changed',
          source: closure.source,
          actor: closure.actor ?? null,
          fromStatus: from,
          toStatus: closure.to,
          details: closure.details,
        },
        announcement(`order.${closure.to}`, order),
      );
      return { order, closed: true };
    });
  }

  /** The gateway's acknowledgement message; a refusal or an unknown outcome is noted and thrown. */
  private async cancelAtGateway(order: OrderEntity, request: CancelRequest): Promise<string> {
    if (!order.orderTrackingId) {
      throw new CheckoutError(
        'order_not_submitted',
        `order ${order.merchantReference} has no gateway order yet (submission ${order.submissionStatus}); retry once it is known`,
        { status: order.status, submission_status: order.submissionStatus },
      );
    }
    let ack: GatewayAcknowledgement;
    try {
      ack = await this.accounts.forOrder(order).cancelOrder(OrderTrackingId(order.orderTrackingId));
    } catch (error) {
      if (error instanceof GatewayUnavailableError) {
        await this.note(order, 'cancel_outcome_unknown', request, { error: error.message });
      }
      throw error;
    }
    if (ack.accepted) return ack.message;
    // The usual reason is a payment that landed meanwhile: learn it before answering.
    const synced = await this.sync.sync(order, request.source);
    const now = 'order' in synced ? synced.order : order;
    if (!isCancellable(now.status)) assertCancellable(now);
    await this.note(order, 'cancel_refused', request, { gateway_message: ack.message });
    throw new CheckoutError(
      'cancel_refused',
      `the payment gateway refused to cancel order ${order.merchantReference}: ${ack.message}`,
      { gateway_message: ack.message },
    );
  }

  private note(
    order: OrderEntity,
    type: string,
    request: CancelRequest,
    details: Record<string, unknown>,
  ): Promise<void> {
    return this.dataSource.transaction((manager: EntityManager) =>
      this.journal.record(manager, order, {
        type,
        source: request.source,
        actor: request.actor,
        details,
      }),
    );
  }
}

function assertCancellable(order: OrderEntity): void {
  if (isCancellable(order.status)) return;
  if (order.status === 'completed' || order.status === 'reversed') {
    throw new CheckoutError(
      'order_paid',
      `order ${order.merchantReference} is ${order.status}; a paid order cannot be cancelled (refund it instead)`,
      { status: order.status },
    );
  }
  throw new CheckoutError(
    'order_not_cancellable',
    `order ${order.merchantReference} is ${order.status} and cannot be cancelled`,
    { status: order.status },
  );
}
