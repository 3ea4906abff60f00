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
  private flushTimer: NodeJS.Timeout | null = null;

  constructor(private readonly dataSource: DataSource) {}

  async store(entry: InboxEntry): Promise<string> {
    const rows = (await this.dataSource.query(
      `INSERT INTO ipn_notifications
         (order_tracking_id, merchant_reference, notification_type, http_method, payload,
          remote_address, status, last_error, next_attempt_at, processed_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7::varchar, $8,
               CASE WHEN $7::varchar = 'received' THEN now() + interval '${INBOX_GRACE_SECONDS} seconds' END,
               CASE WHEN $7::varchar = 'ignored' THEN now() END)
       RETURNING id`,
      [
        entry.orderTrackingId,
        entry.merchantReference,
        entry.notificationType,
        entry.httpMethod,
        JSON.stringify(entry.payload),
        entry.remoteAddress,
        entry.status,
        entry.lastError,
      ],
    )) as { id: string }[];
    return rows[0].id;
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
