import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import {
  EventSource,
  OrderEntity,
  OrderEventEntity,
  OutboxEventEntity,
  RefundEntity,
} from '@app/persistence';
import { toOrderView } from './order-view';

export interface JournalEntry {
  type: string;
  source: EventSource;
  fromStatus?: string | null;
  toStatus?: string | null;
  actor?: string | null;
  gatewayRecord?: unknown;
  details?: Record<string, unknown>;
}

/** Merchant event types the shop's webhook receives. */
export type MerchantEventType =
  | 'order.completed'
  | 'order.failed'
  | 'order.cancelled'
  | 'order.reversed'
  | 'order.expired'
  | 'order.review_required'
  | 'refund.accepted'
  | 'refund.rejected'
  | 'refund.reversed'
  | 'subscription.charged';

/**
 * Writes an order's timeline and its merchant events. Both are written with the caller's
 * EntityManager, inside the transaction that changes the order: the change, its event and its
 * outbox row commit together or not at all.
 */
@Injectable()
export class OrderJournal {
  async record(manager: EntityManager, order: OrderEntity, entry: JournalEntry): Promise<void> {
    const events = manager.getRepository(OrderEventEntity);
    const event = events.create({
      orderId: order.id,
      type: entry.type,
      source: entry.source,
      fromStatus: entry.fromStatus ?? null,
      toStatus: entry.toStatus ?? null,
      actor: entry.actor ?? null,
      gatewayRecord: entry.gatewayRecord ?? null,
      details: entry.details ?? {},
    });
    await events.save(event);
  }

  async announce(
    manager: EntityManager,
    order: OrderEntity,
    type: MerchantEventType,
    refund: RefundEntity | null = null,
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    const outbox = manager.getRepository(OutboxEventEntity);
    await outbox.save(
      outbox.create({
        orderId: order.id,
        type,
        payload: { order: toOrderView(order, refund), ...extra },
      }),
    );
  }
}
