import { INBOX_CHANNEL } from '../inbox-channel';
import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NotificationStatus, PreparedStatement, runPrepared } from '@app/persistence';

export interface InboxEntry {
  orderTrackingId: string | null;
  merchantReference: string | null;
  notificationType: string | null;
  httpMethod: string;
  payload: Record<string, unknown>;
  remoteAddress: string | null;
  status: Extract<NotificationStatus, 'received' | 'ignored'>;
  lastError: string | null;
  /** The W3C traceparent of the request that stored it, when tracing is on. */
  traceParent?: string | null;
}

const MAX_BATCH = 200;
const MAX_PARALLEL_WRITES = 2;
const COLUMNS = 10;

/**
 * One statement for any number of notifications (a column per array parameter), so it is parsed
 * once per connection. A received row is due at once; an ignored one is done when stored. The
 * signal goes out in the same statement, so when (and only if) it commits, and only for a batch
 * holding something to relay.
 */
const STORE: PreparedStatement = {
  name: 'inbox-store',
  text: `WITH stored AS (
           INSERT INTO ipn_notifications
             (id, order_tracking_id, merchant_reference, notification_type, http_method, payload,
              remote_address, status, last_error, trace_parent, next_attempt_at, processed_at)
           SELECT id, tracking_id, reference, type, method, payload, remote, status, error, trace,
                  CASE WHEN status = 'received' THEN now() END,
                  CASE WHEN status = 'received' THEN NULL ELSE now() END
             FROM unnest($1::uuid[], $2::varchar[], $3::varchar[], $4::varchar[], $5::varchar[],
                         $6::jsonb[], $7::varchar[], $8::varchar[], $9::text[], $10::varchar[])
                  AS n(id, tracking_id, reference, type, method, payload, remote, status, error,
                       trace)
           RETURNING status)
         SELECT pg_notify('${INBOX_CHANNEL}', '')
          WHERE EXISTS (SELECT 1 FROM stored WHERE status = 'received')`,
};

interface PendingRow {
  id: string;
  entry: InboxEntry;
  resolve: (id: string) => void;
  reject: (error: Error) => void;
}

/**
 * The api's side of the notification inbox. Acknowledging costs one INSERT and nothing else: the
 * row is due at once and the same statement signals INBOX_CHANNEL, so a worker puts it on the
 * queue within milliseconds (a missed signal only waits for the relay's next timed pass). The api
 * never waits for Redis on this path.
 */
@Injectable()
export class IpnInbox {
  private waiting: PendingRow[] = [];
  private writing = 0;

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
    const columns: unknown[][] = Array.from({ length: COLUMNS }, () => []);
    for (const { id, entry } of batch) {
      const values = [
        id,
        entry.orderTrackingId,
        entry.merchantReference,
        entry.notificationType,
        entry.httpMethod,
        JSON.stringify(entry.payload),
        entry.remoteAddress,
        entry.status,
        entry.lastError,
        entry.traceParent ?? null,
      ];
      values.forEach((value, column) => columns[column].push(value));
    }
    await runPrepared(this.dataSource, STORE, columns);
  }
}
