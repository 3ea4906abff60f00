import { Inject, Injectable, Logger } from '@nestjs/common';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { OrderEntity, OrderRepository } from '@app/persistence';
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
 * cancel_url after cancelling), the configured default, or our small result page.
 */
@Injectable()
export class CheckoutReturnService {
  private readonly logger = new Logger(CheckoutReturnService.name);

  constructor(
    private readonly orders: OrderRepository,
    private readonly syncer: OrderSyncService,
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
    const paid = current.status === 'completed' || current.status === 'reversed';
    const target =
      visit.cancelled && !paid
        ? (current.cancelUrl ?? current.returnUrl ?? this.fallback())
        : (current.returnUrl ?? this.fallback());
    return this.withQuery(target, {
      reference: current.merchantReference,
      status: current.status,
      ...(visit.cancelled && !paid ? { cancelled: '1' } : {}),
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
