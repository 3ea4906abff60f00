import { Injectable } from '@nestjs/common';
import { MerchantReference, OrderTrackingId } from '@app/domain';
import { GatewayAccounts, TransactionLookup } from '@app/gateway-client';
import { EventSource, OrderEntity, OrderRepository } from '@app/persistence';
import { InboxCover, OrderOutcomeService } from './order-outcome.service';
import type { OutcomeResult } from './outcome-plan';

/** One lookup of an order at the gateway, applied; shared by everyone who joined it. */
export interface OrderLookup {
  /** 'waiting' until it asks the database clock for its start time, which then becomes startedAt. */
  phase: 'waiting' | 'starting' | 'started';
  startedAt?: Date;
  /**
   * Inbox rows waiting on it: the outcome's write marks them applied, with the order's rows
   * received before the lookup started, when it applies without the row lock.
   */
  readonly notifications: Set<string>;
  /** `covered`: the inbox rows that write marked (none on the locked path). */
  readonly done: Promise<{ startedAt: Date; result: OutcomeResult; covered: ReadonlySet<string> }>;
}

/**
 * Looks an order up at the gateway and applies the answer. Lookups for one order are coalesced
 * in this process: while one is in flight, any number of further requests share a single
 * follow-up lookup that starts when it ends (the follow-up sees whatever changed meanwhile).
 */
@Injectable()
export class OrderSyncService {
  private readonly inFlight = new Map<string, { current: OrderLookup; next?: OrderLookup }>();

  constructor(
    private readonly accounts: GatewayAccounts,
    private readonly orders: OrderRepository,
    private readonly outcomes: OrderOutcomeService,
  ) {}

  async sync(order: OrderEntity, source: EventSource): Promise<OutcomeResult> {
    return (await this.begin(order, source).done).result;
  }

  /**
   * A lookup of this order, in flight or about to start, that began after `since` (by the
   * database clock) and so sees any change made before then; undefined when none does.
   */
  covering(orderId: string, since: Date): OrderLookup | undefined {
    const slot = this.inFlight.get(orderId);
    if (!slot) return undefined;
    // Strictly later: both times come truncated to milliseconds from microsecond columns.
    const sees = (lookup: OrderLookup) =>
      lookup.phase === 'waiting' || (lookup.startedAt !== undefined && lookup.startedAt > since);
    if (sees(slot.current)) return slot.current;
    return slot.next && sees(slot.next) ? slot.next : undefined;
  }

  /**
   * Starts a lookup, or joins the follow-up of the one in flight (creating it if needed).
   * `notBefore`, a database time the caller has just read, saves asking for the start time when
   * the lookup starts at once: it is a lower bound of it.
   */
  begin(order: OrderEntity, source: EventSource, notBefore?: Date): OrderLookup {
    const slot = this.inFlight.get(order.id);
    if (!slot) {
      const current = this.lookup(order, source, undefined, notBefore);
      void current.done.catch(() => undefined).finally(() => this.advance(order.id));
      this.inFlight.set(order.id, { current });
      return current;
    }
    slot.next ??= this.lookup(order, source, slot.current.done);
    return slot.next;
  }

  private advance(orderId: string): void {
    const slot = this.inFlight.get(orderId);
    if (!slot) return;
    if (!slot.next) {
      this.inFlight.delete(orderId);
      return;
    }
    const current = slot.next;
    void current.done.catch(() => undefined).finally(() => this.advance(orderId));
    this.inFlight.set(orderId, { current });
  }

  private lookup(
    order: OrderEntity,
    source: EventSource,
    after?: Promise<unknown>,
    notBefore?: Date,
  ): OrderLookup {
    const notifications = new Set<string>();
    const lookup: Omit<OrderLookup, 'done'> & { done?: OrderLookup['done'] } = notBefore
      ? { phase: 'started', startedAt: notBefore, notifications }
      : { phase: 'waiting', notifications };
    lookup.done = (async () => {
      await after?.catch(() => undefined);
      let startedAt = notBefore;
      if (!startedAt) {
        lookup.phase = 'starting';
        startedAt = await this.orders.databaseNow();
        Object.assign(lookup, { phase: 'started', startedAt });
      }
      // A follow-up starts after another lookup of the order applied: its copy is stale.
      const { result, covered } = await this.lookupAndApply(
        order,
        source,
        !after,
        startedAt,
        notifications,
      );
      return { startedAt, result, covered };
    })();
    return lookup as OrderLookup;
  }

  /**
   * A tracking id never changes once known; without one, the row is read again (it may have
   * learnt it meanwhile, from the creation answer or a repair). `current`: the row as given is
   * what the order looked like just before this lookup, so applying the answer can skip the
   * row lock unless something changed it meanwhile. The notifications waiting on the lookup,
   * with the order's received up to its start, are marked by the outcome's write when it can.
   */
  private async lookupAndApply(
    order: OrderEntity,
    source: EventSource,
    current: boolean,
    startedAt: Date,
    notifications: ReadonlySet<string>,
  ): Promise<{ result: OutcomeResult; covered: ReadonlySet<string> }> {
    const fresh = order.orderTrackingId ? order : ((await this.orders.findById(order.id)) ?? order);
    const lookup: TransactionLookup = fresh.orderTrackingId
      ? await this.accounts
          .forOrder(fresh)
          .getTransactionStatus(fresh.orderTrackingId as OrderTrackingId)
      : await this.accounts
          .forOrder(fresh)
          .getTransactionByMerchantReference(
            (fresh.gatewayReference ?? fresh.merchantReference) as MerchantReference,
          );
    const cover: InboxCover = {
      orderTrackingId: fresh.orderTrackingId,
      receivedUpTo: startedAt,
      notificationIds: notifications,
      covered: new Set(),
    };
    const result = await this.outcomes.apply(
      fresh.id,
      lookup,
      source,
      current || fresh !== order ? fresh : undefined,
      cover,
    );
    return { result, covered: cover.covered };
  }
}
