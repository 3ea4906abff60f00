import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { CANCELLED_BY_CUSTOMER, OrderTrackingId } from '@app/domain';
import { GatewayAccounts } from '@app/gateway-client';
import { OrderEntity, OrderRepository } from '@app/persistence';
import { announcement, OrderJournal } from '../order-journal';
import { OrderSyncService } from '../order-sync.service';

export const RESULT_PATH = '/v1/checkouts/result';

export interface ReturnVisit {
  orderTrackingId?: string;
  merchantReference?: string;
  cancelled: boolean;
}

/**
 * The customer's way back from the hosted page. The order is looked up at the gateway first, so
 * the shop's page sees the real status, then the customer goes to the shop's return_url (or
 * cancel_url after cancelling), the configured default, or our small result page. A customer who
 * pressed cancel ends that payment attempt: it is cancelled at the gateway, the attempt is
 * `cancelled` (its timeline event `attempt_cancelled`, its merchant event
 * `order.attempt_cancelled`) and the order is `failed` (cancelled_by_customer), open for another
 * attempt until the shop cancels it or it expires; the redirect says so (`attempt_cancelled=1`).
 */
@Injectable()
export class CheckoutReturnService {
  private readonly logger = new Logger(CheckoutReturnService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
    private readonly syncer: OrderSyncService,
    private readonly accounts: GatewayAccounts,
    private readonly journal: OrderJournal,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  /** The URL to send the customer to (303). */
  async destination(visit: ReturnVisit): Promise<string> {
    const order = await this.findOrder(visit);
    if (!order) {
      return this.withQuery(this.fallback(), {
        reference: visit.merchantReference ?? '',
        status: 'unknown',
      });
    }
    let current = order;
    try {
      await this.syncer.sync(order, 'return');
      current = (await this.orders.findById(order.id)) ?? order;
    } catch (error) {
      // The customer still gets home; the IPN and the poller settle the order.
      this.logger.warn(
        { reference: order.merchantReference, err: (error as Error).message },
        'lookup on return failed',
      );
    }
    let attemptCancelled = false;
    if (
      visit.cancelled &&
      current.status === 'pending' &&
      current.kind === 'hosted' &&
      current.orderTrackingId !== null &&
      // Only the attempt the customer came back from; an older page's cancel changes nothing.
      (!visit.orderTrackingId || visit.orderTrackingId === current.orderTrackingId)
    ) {
      const ended = await this.cancelAttempt(current);
      attemptCancelled = ended !== null;
      current = ended ?? current;
    }
    const paid = current.status === 'completed' || current.status === 'reversed';
    const target =
      visit.cancelled && !paid
        ? (current.cancelUrl ?? current.returnUrl ?? this.fallback())
        : (current.returnUrl ?? this.fallback());
    return this.withQuery(target, {
      reference: current.merchantReference,
      status: current.status,
      ...(visit.cancelled && !paid ? { cancelled: '1' } : {}),
      ...(attemptCancelled ? { attempt_cancelled: '1' } : {}),
    });
  }

  /**
   * Cancels the attempt at the gateway, then records it as cancelled by the customer (the order
   * failed, and open for another attempt).
   * Null when the gateway refused (the customer may have paid meanwhile: the lookups settle it)
   * or the attempt moved on under the lock.
   */
  private async cancelAttempt(order: OrderEntity): Promise<OrderEntity | null> {
    const trackingId = order.orderTrackingId as OrderTrackingId;
    try {
      const ack = await this.accounts.forOrder(order).cancelOrder(trackingId);
      if (!ack.accepted) return null;
    } catch (error) {
      this.logger.warn(
        { reference: order.merchantReference, err: (error as Error).message },
        'attempt cancel on return failed',
      );
      return null;
    }
    return this.dataSource.transaction(async (manager) => {
      const row = await this.orders.lockById(order.id, manager);
      if (!row || row.status !== 'pending' || row.orderTrackingId !== trackingId) return null;
      row.status = 'failed';
      row.failedAt = new Date();
      row.failureReason = CANCELLED_BY_CUSTOMER;
      await manager.getRepository(OrderEntity).save(row);
      await this.journal.record(
        manager,
        row,
        {
          // Not a decline: its own type, so the shop and the operators tell the two apart.
          type: 'attempt_cancelled',
          source: 'return',
          fromStatus: 'pending',
          toStatus: 'failed',
          details: {
            reason: 'the customer cancelled on the payment page; cancelled at the gateway',
            payment_status_code: CANCELLED_BY_CUSTOMER,
          },
        },
        announcement('order.attempt_cancelled', row),
      );
      return row;
    });
  }

  /** By tracking id first; a row whose creation answer was lost knows only its reference. */
  private async findOrder(visit: ReturnVisit): Promise<OrderEntity | null> {
    for (const name of [visit.orderTrackingId, visit.merchantReference]) {
      const order = name ? await this.orders.findByAnyReference(name) : null;
      if (order) return order;
    }
    return null;
  }

  private fallback(): string {
    return this.config.defaultReturnUrl ?? `${this.config.publicBaseUrl}${RESULT_PATH}`;
  }

  private withQuery(base: string, query: Record<string, string>): string {
    const url = new URL(base);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    return url.toString();
  }
}
