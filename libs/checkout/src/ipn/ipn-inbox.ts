import { randomUUID } from 'node:crypto';
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { NotificationStatus } from '@app/persistence';

export interface InboxEntry {
  orderTrackingId: string | null;
  merchantReference: string | null;
  notificationType: string | null;
  httpMethod: string;
  payload: Record<string, unknown>;
  remoteAddress: string | null;
  status: Extract<NotificationStatus, 'received' | 'ignored'>;
  lastError: string | null;
}

const MAX_BATCH = 200;
const MAX_PARALLEL_WRITES = 2;

interface PendingRow {
  id: string;
  entry: InboxEntry;
  resolve: (id: string) => void;
  reject: (error: Error) => void;
}

/** How long a stored row may wait for its job before the sweeper queues it again. */
export const INBOX_GRACE_SECONDS = 30;

/**
 * The api's side of the notification inbox: one INSERT per notification on the hot path. The
 * 'queued' marks are written in small batches off that path; they only inform an admin.
 */
@Injectable()
export class IpnInbox implements OnModuleDestroy {
  private readonly logger = new Logger(IpnInbox.name);
  private queued: string[] = [];
  private waiting: PendingRow[] = [];
  private writing = 0;
  private flushTimer: NodeJS.Timeout | null = null;

  constructor(private readonly dataSource: DataSource) {}

  /**
   * Stores one notification; resolves once its row is committed. Concurrent calls are written
   * together (one multi-row INSERT, one commit) while the previous write is under way, so the
   * cost of a commit is shared by everything that arrived meanwhile.
   */
  store(entry: InboxEntry): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      this.waiting.push({ id: randomUUID(), entry, resolve, reject });
      if (this.writing < MAX_PARALLEL_WRITES) void this.write();
    });
  }

  private async write(): Promise<void> {
    if (this.waiting.length === 0) return;
    const batch = this.waiting.splice(0, MAX_BATCH);
    this.writing += 1;
    try {
      await this.insert(batch);
      for (const item of batch) item.resolve(item.id);
    } catch (error) {
      for (const item of batch) item.reject(error as Error);
    } finally {
      this.writing -= 1;
      if (this.waiting.length > 0) void this.write();
    }
  }

  private async insert(batch: PendingRow[]): Promise<void> {
    const values: unknown[] = [];
    const tuples = batch.map(({ id, entry }, index) => {
      values.push(
        id,
        entry.orderTrackingId,
        entry.merchantReference,
        entry.notificationType,
        entry.httpMethod,
        JSON.stringify(entry.payload),
        entry.remoteAddress,
        entry.status,
        entry.lastError,
      );
      const p = (n: number) => `$${index * 9 + n}`;
      const due =
        entry.status === 'received' ? `now() + interval '${INBOX_GRACE_SECONDS} seconds'` : 'NULL';
      const processed = entry.status === 'ignored' ? 'now()' : 'NULL';
      return `(${p(1)}::uuid, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}::jsonb, ${p(7)}, ${p(8)}, ${p(9)}, ${due}, ${processed})`;
    });
    await this.dataSource.query(
      `INSERT INTO ipn_notifications
         (id, order_tracking_id, merchant_reference, notification_type, http_method, payload,
          remote_address, status, last_error, next_attempt_at, processed_at)
       VALUES ${tuples.join(', ')}`,
      values,
    );
  }

  markQueued(id: string): void {
    this.queued.push(id);
    this.flushTimer ??= setTimeout(() => void this.flush(), 200);
  }

  /** The queue is unreachable: let the sweeper take the row as soon as it can. */
  async dueNow(id: string): Promise<void> {
    await this.dataSource
      .query(`UPDATE ipn_notifications SET next_attempt_at = now() WHERE id = $1`, [id])
      .catch((error: Error) =>
        this.logger.warn(`inbox row ${id} keeps its grace: ${error.message}`),
      );
  }

  async flush(): Promise<void> {
    this.flushTimer = null;
    const ids = this.queued;
    this.queued = [];
    if (ids.length === 0) return;
    await this.dataSource
      .query(
        `UPDATE ipn_notifications SET status = 'queued' WHERE id = ANY($1::uuid[]) AND status = 'received'`,
        [ids],
      )
      .catch((error: Error) => this.logger.warn(`queued marks not written: ${error.message}`));
  }

  async onModuleDestroy(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    await this.flush();
  }
}
