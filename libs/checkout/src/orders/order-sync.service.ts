import { Injectable } from '@nestjs/common';
import { MerchantReference, OrderTrackingId } from '@app/domain';
import { GatewayClient, TransactionLookup } from '@app/gateway-client';
import { EventSource, OrderEntity, OrderRepository } from '@app/persistence';
import { OrderOutcomeService, OutcomeResult } from './order-outcome.service';

/**
 * Looks an order up at the gateway and applies the answer. Lookups for one order are coalesced
 * in this process: while one is in flight, any number of further requests share a single
 * follow-up lookup that starts when it ends (the follow-up sees whatever changed meanwhile).
 */
@Injectable()
export class OrderSyncService {
  private readonly inFlight = new Map<
    string,
    { current: Promise<OutcomeResult>; next?: Promise<OutcomeResult> }
  >();

  constructor(
    private readonly gateway: GatewayClient,
    private readonly orders: OrderRepository,
    private readonly outcomes: OrderOutcomeService,
  ) {}

  sync(order: OrderEntity, source: EventSource): Promise<OutcomeResult> {
    const slot = this.inFlight.get(order.id);
    if (!slot) {
      const current = this.lookupAndApply(order, source).finally(() => this.advance(order.id));
      this.inFlight.set(order.id, { current });
      return current;
    }
    if (!slot.next) {
      slot.next = slot.current
        .catch(() => undefined)
        .then(() => this.lookupAndApply(order, source));
    }
    return slot.next;
  }

  async syncById(orderId: string, source: EventSource): Promise<OutcomeResult> {
    const order = await this.orders.findById(orderId);
    if (!order) return { kind: 'order_missing' };
    return this.sync(order, source);
  }

  private advance(orderId: string): void {
    const slot = this.inFlight.get(orderId);
    if (!slot) return;
    if (!slot.next) {
      this.inFlight.delete(orderId);
      return;
    }
    const next = slot.next.finally(() => this.advance(orderId));
    this.inFlight.set(orderId, { current: next });
  }

  /**
   * A tracking id never changes once known; without one, the row is read again (it may have
   * learnt it meanwhile, from the creation answer or a repair).
   */
  private async lookupAndApply(order: OrderEntity, source: EventSource): Promise<OutcomeResult> {
    const fresh = order.orderTrackingId ? order : ((await this.orders.findById(order.id)) ?? order);
    const lookup: TransactionLookup = fresh.orderTrackingId
      ? await this.gateway.getTransactionStatus(fresh.orderTrackingId as OrderTrackingId)
      : await this.gateway.getTransactionByMerchantReference(
          fresh.merchantReference as MerchantReference,
        );
    return this.outcomes.apply(fresh.id, lookup, source);
  }
}
