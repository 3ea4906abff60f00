import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { isCancellable, OrderTrackingId } from '@app/domain';
import { GatewayClient } from '@app/gateway-client';
import { OrderEntity, OrderRepository } from '@app/persistence';
import { CheckoutError } from '../http/checkout-error';
import { OrderJournal } from './order-journal';
import { OrderQueryService, OrderWithTimeline } from './order-query.service';
import { OrderSyncService } from './order-sync.service';

const paidConflict = (order: OrderEntity) =>
  CheckoutError.conflict(
    'order_paid',
    `order ${order.merchantReference} is ${order.status}; a paid order cannot be cancelled (refund it instead)`,
    { status: order.status },
  );

/** Cancels an unpaid order at the gateway, then records it under the order's row lock. */
@Injectable()
export class OrderCancelService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
    private readonly query: OrderQueryService,
    private readonly gateway: GatewayClient,
    private readonly sync: OrderSyncService,
    private readonly journal: OrderJournal,
  ) {}

  async cancel(reference: string, actor: string): Promise<OrderWithTimeline> {
    const order = await this.query.find(reference);
    if (order.status === 'cancelled') return this.query.viewOf(order);
    this.assertCancellable(order);
    if (!order.orderTrackingId) {
      throw CheckoutError.conflict(
        'order_not_submitted',
        `order ${order.merchantReference} has no gateway order yet (submission ${order.submissionStatus}); retry once it is known`,
      );
    }
    const ack = await this.gateway.cancelOrder(OrderTrackingId(order.orderTrackingId));
    if (!ack.accepted) {
      // The usual reason is a payment that landed meanwhile: learn it before answering.
      const synced = await this.sync.sync(order, 'api');
      const now = 'order' in synced ? synced.order : order;
      if (!isCancellable(now.status)) this.assertCancellable(now);
      throw new CheckoutError(
        'gateway_rejected',
        'cancel_refused',
        `the payment gateway refused to cancel order ${order.merchantReference}: ${ack.message}`,
        { gateway: { kind: 'rejected', code: null, messages: [ack.message] } },
      );
    }
    const cancelled = await this.dataSource.transaction(async (manager) => {
      const row = await this.orders.lockById(order.id, manager);
      if (!row) throw CheckoutError.notFound('order', reference);
      if (!isCancellable(row.status)) return row;
      const from = row.status;
      row.status = 'cancelled';
      row.cancelledAt = new Date();
      row.nextPollAt = null;
      await manager.getRepository(OrderEntity).save(row);
      await this.journal.record(manager, row, {
        type: 'status_changed',
        source: 'api',
        actor,
        fromStatus: from,
        toStatus: 'cancelled',
        details: { gateway_message: ack.message },
      });
      await this.journal.announce(manager, row, 'order.cancelled');
      return row;
    });
    if (cancelled.status !== 'cancelled') this.assertCancellable(cancelled);
    return this.query.viewOf(cancelled);
  }

  private assertCancellable(order: OrderEntity): void {
    if (isCancellable(order.status)) return;
    if (order.status === 'completed' || order.status === 'reversed') throw paidConflict(order);
    throw CheckoutError.conflict(
      'order_not_cancellable',
      `order ${order.merchantReference} is ${order.status} and cannot be cancelled`,
      { status: order.status },
    );
  }
}
