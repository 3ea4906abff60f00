import { Inject, Injectable } from '@nestjs/common';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { nextPollAt } from '@app/domain';
import { OrderRepository } from '@app/persistence';
import { OrderExpiryService } from './order-expiry.service';
import { OrderSyncService } from '../order-sync.service';

/**
 * One poll of one order: look it up, then write when to look again (the backoff schedule), or
 * expire it at the horizon. (Completed orders with a refund awaiting reversal: refunds/worker.)
 */
@Injectable()
export class PollScheduleService {
  constructor(
    private readonly orders: OrderRepository,
    private readonly sync: OrderSyncService,
    private readonly expiry: OrderExpiryService,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async poll(orderId: string): Promise<void> {
    const before = await this.orders.findById(orderId);
    if (!before) return;
    await this.sync.sync(before, 'poll');
    const order = await this.orders.findById(orderId);
    if (!order) return;
    const now = new Date();
    const attempts = order.pollAttempts + 1;

    if (order.status === 'pending' || order.status === 'failed') {
      const next = nextPollAt(
        attempts,
        // The poll schedule and its horizon run from the current payment attempt's start.
        order.attemptStartedAt ?? order.createdAt,
        now,
        this.config.pollHorizonHours,
        this.config.pollScheduleSeconds,
      );
      if (next === 'horizon_reached') {
        const result = await this.expiry.expire(order);
        if (result === 'expired') return this.record(orderId, attempts, null);
        // Not cancelled: keep looking at the slowest pace so a late payment is still seen.
        const slowest = this.config.pollScheduleSeconds[this.config.pollScheduleSeconds.length - 1];
        return this.record(orderId, attempts, new Date(now.getTime() + slowest * 1000));
      }
      return this.record(orderId, attempts, next);
    }

    await this.record(orderId, attempts, null);
  }

  /** A final order gets no next poll: the sweep only picks unpaid orders and open refunds. */
  private record(orderId: string, attempts: number, next: Date | null): Promise<void> {
    return this.orders.schedulePoll(orderId, attempts, next);
  }
}
