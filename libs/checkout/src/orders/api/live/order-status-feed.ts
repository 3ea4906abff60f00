import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';

/** One change of an order's status, from its timeline: the stream's event, its id the row's. */
export interface StatusChange {
  id: string;
  orderId: string;
  type: string;
  fromStatus: string | null;
  toStatus: string;
  source: string;
  at: Date;
  details: Record<string, unknown>;
}

/** Someone following one order: told every time the order's status changes may have grown. */
export interface StatusListener {
  orderId: string;
  /** Every status change of the order so far, oldest first; the listener sends what is new. */
  changed(changes: StatusChange[]): void;
}

interface Watched {
  version: number;
  listeners: Set<StatusListener>;
}

/**
 * The live status of the orders this api replica's subscribers follow. Whichever replica or
 * worker changes an order, the change is in PostgreSQL: while anyone listens, one statement per
 * ORDER_STREAM_POLL_MS reads the watched orders' versions, and the timeline of each order whose
 * version moved. Every status change bumps the version in the statement that writes its timeline
 * event, so a moved version means new events are visible. (Not LISTEN/NOTIFY: a notification on
 * every order event would take PostgreSQL's commit-time notify lock on the payment hot path, for
 * the few orders someone watches; nor does LISTEN pass a transaction-mode pooler.)
 */
@Injectable()
export class OrderStatusFeed implements OnModuleDestroy {
  private readonly logger = new Logger(OrderStatusFeed.name);
  private readonly watched = new Map<string, Watched>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  /**
   * Follows an order seen at `version`; the listener first hears the changes so far (it decides
   * what it has sent), until `unsubscribe`.
   */
  async subscribe(listener: StatusListener, version: number): Promise<void> {
    let watched = this.watched.get(listener.orderId);
    if (!watched) {
      watched = { version, listeners: new Set() };
      this.watched.set(listener.orderId, watched);
    }
    watched.listeners.add(listener);
    this.timer ??= setInterval(() => void this.poll(), this.config.orderStreamPollMs);
    const changes = await this.changesOf([listener.orderId]);
    // It may have gone meanwhile (the browser closed): then it is no longer watched.
    if (watched.listeners.has(listener)) listener.changed(changes.get(listener.orderId) ?? []);
  }

  /** Subscribers still open (the metrics and the tests look). */
  get listeners(): number {
    let count = 0;
    for (const watched of this.watched.values()) count += watched.listeners.size;
    return count;
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  unsubscribe(listener: StatusListener): void {
    const watched = this.watched.get(listener.orderId);
    if (!watched) return;
    watched.listeners.delete(listener);
    if (watched.listeners.size === 0) this.watched.delete(listener.orderId);
    if (this.watched.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private async poll(): Promise<void> {
    if (this.polling || this.watched.size === 0) return;
    this.polling = true;
    try {
      const rows = (await this.dataSource.query(
        'SELECT id, version FROM orders WHERE id = ANY($1::uuid[])',
        [[...this.watched.keys()]],
      )) as { id: string; version: number }[];
      const moved = rows.filter((row) => {
        const watched = this.watched.get(row.id);
        return watched !== undefined && row.version !== watched.version;
      });
      if (moved.length === 0) return;
      const changes = await this.changesOf(moved.map((row) => row.id));
      for (const row of moved) {
        const watched = this.watched.get(row.id);
        if (!watched) continue;
        // Only once told: a failed read leaves the version moved for the next tick.
        watched.version = row.version;
        for (const listener of watched.listeners) listener.changed(changes.get(row.id) ?? []);
      }
    } catch (error) {
      this.logger.warn(`live status poll failed: ${(error as Error).message}`);
    } finally {
      this.polling = false;
    }
  }

  private async changesOf(orderIds: string[]): Promise<Map<string, StatusChange[]>> {
    const rows = (await this.dataSource.query(
      `SELECT id, order_id, type, from_status, to_status, source, created_at, details
         FROM order_events
        WHERE order_id = ANY($1::uuid[]) AND to_status IS NOT NULL
        ORDER BY order_id, created_at, id`,
      [orderIds],
    )) as {
      id: string;
      order_id: string;
      type: string;
      from_status: string | null;
      to_status: string;
      source: string;
      created_at: Date;
      details: Record<string, unknown> | null;
    }[];
    const byOrder = new Map<string, StatusChange[]>();
    for (const row of rows) {
      const list = byOrder.get(row.order_id) ?? [];
      list.push({
        id: row.id,
        orderId: row.order_id,
        type: row.type,
        fromStatus: row.from_status,
        toStatus: row.to_status,
        source: row.source,
        at: row.created_at,
        details: row.details ?? {},
      });
      byOrder.set(row.order_id, list);
    }
    return byOrder;
  }
}
