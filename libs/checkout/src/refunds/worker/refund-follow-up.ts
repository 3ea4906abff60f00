import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { nextPollAt, REFUNDS_AWAITING_REVERSAL } from '@app/domain';
import { OrderRepository } from '@app/persistence';
import { OrderJournal } from '../../orders/order-journal';
import { OrderSyncService } from '../../orders/order-sync.service';

export const STALE_REFUND_REASON = 'refund accepted but no reversal seen within the poll horizon';

/**
 * A refund the gateway took shows as money moved only when a lookup finds its order reversed
 * (the outcome settles the refund then). Until that, the completed order is looked up on the
 * poll schedule counted from the refund's request; past the poll horizon it is flagged for a
 * person, with its timeline and merchant event, and no longer polled.
 */
@Injectable()
export class RefundFollowUp {
  constructor(
    private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
    private readonly sync: OrderSyncService,
    private readonly journal: OrderJournal,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async follow(orderId: string): Promise<void> {
    const before = await this.orders.findById(orderId);
    if (!before) return;
    await this.sync.sync(before, 'poll');
    const order = await this.orders.findById(orderId);
    if (!order) return;
    const attempts = order.pollAttempts + 1;
    const refund = order.status === 'completed' ? await this.orders.refundFor(orderId) : null;
    if (refund && REFUNDS_AWAITING_REVERSAL.includes(refund.status)) {
      const next = nextPollAt(
        attempts,
        refund.createdAt,
        new Date(),
        this.config.pollHorizonHours,
        this.config.pollScheduleSeconds,
      );
      if (next !== 'horizon_reached') return this.orders.schedulePoll(orderId, attempts, next);
      await this.flagStale(orderId);
    }
    await this.orders.schedulePoll(orderId, attempts, null);
  }

  private async flagStale(orderId: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const order = await this.orders.lockById(orderId, manager);
      if (!order) return;
      // Polling stops with the flag, in its transaction: no reader sees one without the other.
      order.nextPollAt = null;
      await this.journal.flagForReview(manager, order, STALE_REFUND_REASON, 'poll');
    });
  }
}
