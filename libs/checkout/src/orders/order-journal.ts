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

  /**
   * Marks the order for a person to look at, with its timeline event and merchant event the first
   * time for a given reason (a repeated poll with the same finding adds nothing).
   */
  async flagForReview(
    manager: EntityManager,
    order: OrderEntity,
    reason: string,
    source: EventSource,
    gatewayRecord?: unknown,
  ): Promise<void> {
    const firstTime = !order.needsReview || order.reviewReason !== reason;
    order.needsReview = true;
    order.reviewReason = reason;
    await manager.getRepository(OrderEntity).save(order);
    if (!firstTime) return;
    await this.record(manager, order, {
      type: 'flagged_for_review',
      source,
      gatewayRecord,
      details: { reason },
    });
    await this.announce(manager, order, 'order.review_required', null, { reason });
  }

  /**
   * Runs one `INSERT|UPDATE orders ... RETURNING *` and appends its timeline event in the same
   * statement (a data-modifying CTE): as atomic as a transaction, in one round trip instead of
   * four or five. The checkout path uses it twice per checkout. Answers the changed row, if any.
   */
  async changeWithEvent(
    manager: EntityManager,
    [changeSql, changeParams]: [string, unknown[]],
    entry: JournalEntry,
  ): Promise<Record<string, unknown> | undefined> {
    const at = changeParams.length;
    const rows = (await manager.query(
      `WITH changed AS (${changeSql}),
       event AS (
         INSERT INTO "order_events" ("order_id", "type", "source", "from_status", "to_status", "actor", "gateway_record", "details")
         SELECT changed."id", $${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}, $${at + 5}, $${at + 6}::jsonb, $${at + 7}::jsonb
         FROM changed
       )
       SELECT * FROM changed`,
      [
        ...changeParams,
        entry.type,
        entry.source,
        entry.fromStatus ?? null,
        entry.toStatus ?? null,
        entry.actor ?? null,
        entry.gatewayRecord === undefined ? null : JSON.stringify(entry.gatewayRecord),
        JSON.stringify(entry.details ?? {}),
      ],
    )) as Record<string, unknown>[];
    return rows[0];
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
