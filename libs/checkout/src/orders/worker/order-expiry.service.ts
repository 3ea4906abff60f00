import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { isCancellable, OrderTrackingId } from '@app/domain';
import { GatewayAccounts, GatewayError } from '@app/gateway-client';
import { OrderEntity, OrderRepository } from '@app/persistence';
import { OrderCancelService } from '../order-cancel.service';
import { OrderJournal } from '../order-journal';

export type ExpiryResult = 'expired' | 'flagged' | 'not_cancellable';

/**
 * At the poll horizon an unpaid order is cancelled at the gateway, so that a late payment cannot
 * land on an order the shop has given up, and marked expired only once the gateway confirms.
 * Anything else (refused, timed out, no tracking id) flags the order for review instead.
 */
@Injectable()
export class OrderExpiryService {
  private readonly logger = new Logger(OrderExpiryService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
    private readonly accounts: GatewayAccounts,
    private readonly journal: OrderJournal,
    private readonly cancellation: OrderCancelService,
  ) {}

  async expire(order: OrderEntity): Promise<ExpiryResult> {
    if (!isCancellable(order.status)) return 'not_cancellable';
    if (!order.orderTrackingId) {
      return this.flag(order.id, 'poll horizon reached and the gateway never named this order');
    }
    let message: string;
    try {
      const answer = await this.accounts
        .forOrder(order)
        .cancelOrder(order.orderTrackingId as OrderTrackingId);
      if (answer.accepted) return this.markExpired(order.id, answer.message);
      message = answer.message;
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      message = `${error.kind}: ${error.message}`;
    }
    return this.flag(order.id, `poll horizon reached, gateway did not cancel: ${message}`);
  }

  private async markExpired(orderId: string, gatewayMessage: string): Promise<ExpiryResult> {
    const { closed } = await this.cancellation.close(orderId, {
      to: 'expired',
      source: 'poll',
      details: { reason: 'poll horizon reached; cancelled at the gateway', gatewayMessage },
    });
    if (!closed) return 'not_cancellable';
    this.logger.log({ orderId }, 'order expired at the poll horizon');
    return 'expired';
  }

  private flag(orderId: string, reason: string): Promise<ExpiryResult> {
    return this.dataSource.transaction(async (manager) => {
      const order = await this.orders.lockById(orderId, manager);
      if (!order) return 'not_cancellable';
      await this.journal.flagForReview(manager, order, reason, 'poll');
      return 'flagged';
    });
  }
}
