import { serviceMetrics } from '@app/common';
import { cutText, mayHoldUnstorableText, storableJson, storableText } from '@app/domain';
import { encodeInboxSignal, HANDOVER_SECONDS, INBOX_CHANNEL } from '../inbox-channel';
import { NOTIFICATION_LAST_ERROR_MAX_LENGTH } from '../inbox-limits';
import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { DataSource } from 'typeorm';
import {
  NotificationStatus,
  PreparedStatement,
  runPrepared,
  StatementBatch,
} from '@app/persistence';

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
  /** The merchant account whose IPN URL it came to (null for `default`'s). */
  gatewayAccount?: string | null;
}

const MAX_BATCH = 200;

/**
 * The inbox's statements under way at once: IPN_STORE_WRITERS, but never more than half the api's
 * pool, so that a burst of notifications leaves connections to the checkouts and reads beside it.
 */
export function inboxWriters(
  config: Pick<ServiceConfig, 'ipnStoreWriters' | 'databasePoolSize'>,
): number {
  return Math.max(1, Math.min(config.ipnStoreWriters, Math.floor(config.databasePoolSize.api / 2)));
}

/**
 * One statement for any number of notifications, parsed once per connection. The rows go as one
 * JSON array of arrays ($1, each in the INSERT's column order): one native JSON.stringify, where
 * an array parameter per column has the driver quote every value in JavaScript, and the payload
 * is nested as it is, not written as text and quoted again. A received row comes due after the handover
 * ($2, HANDOVER_SECONDS from now); an ignored one is done when stored. The signal, which hands
 * the received rows over ($3), goes out in the same statement, so when (and only if) it commits,
 * and only for a batch holding something to relay.
 */
const STORE: PreparedStatement = {
  name: 'inbox-store-rows',
  text: `WITH stored AS (
           INSERT INTO ipn_notifications
             (id, order_tracking_id, merchant_reference, notification_type, http_method, payload,
              remote_address, status, last_error, trace_parent, gateway_account, next_attempt_at,
              processed_at)
           SELECT (n->>0)::uuid, n->>1, n->>2, n->>3, n->>4, n->5, n->>6, n->>7, n->>8, n->>9,
                  n->>10, CASE WHEN n->>7 = 'received' THEN $2::timestamptz END,
                  CASE WHEN n->>7 = 'received' THEN NULL ELSE now() END
             FROM jsonb_array_elements($1::jsonb) AS n
           RETURNING status)
         SELECT pg_notify('${INBOX_CHANNEL}', $3::text)
          WHERE EXISTS (SELECT 1 FROM stored WHERE status = 'received')`,
};

/** Deeper than any notification: a payload nested further is cut there. */
const MAX_PAYLOAD_DEPTH = 8;

function storableNullable(value: string | null, max: number): string | null {
  return value === null ? null : storableText(value, max);
}

/** True when the payload nests deeper than MAX_PAYLOAD_DEPTH (storableJson cuts it there). */
function nestedTooDeep(value: unknown, depth = 0): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (depth >= MAX_PAYLOAD_DEPTH) return true;
  for (const item of Object.values(value as Record<string, unknown>)) {
    if (nestedTooDeep(item, depth + 1)) return true;
  }
  return false;
}

/**
 * The api's side of the notification inbox. Acknowledging costs one INSERT and nothing else: the
 * same statement signals INBOX_CHANNEL with the rows, so a worker puts their jobs on the queue
 * within milliseconds without writing them again (a row the signal did not hand over comes due
 * HANDOVER_SECONDS later and the relay claims it). The api never waits for Redis on this path.
 */
@Injectable()
export class IpnInbox {
  /**
   * Notifications that arrive while earlier ones are being written are written together (one
   * multi-row INSERT, one commit), so the cost of a commit is shared by everything meanwhile.
   */
  private readonly writes: StatementBatch<InboxEntry, string>;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(SERVICE_CONFIG) config: ServiceConfig,
  ) {
    this.writes = new StatementBatch((entries) => this.insert(entries), {
      maxBatch: MAX_BATCH,
      maxParallel: inboxWriters(config),
      gatherMs: config.ipnStoreGatherMs,
      observe: (items) =>
        serviceMetrics.sharedStatementItems.observe({ statement: 'inbox_store' }, items),
    });
  }

  /** Stores one notification; resolves with its id once its row is committed. */
  store(entry: InboxEntry): Promise<string> {
    return this.writes.submit(entry);
  }

  private async insert(entries: InboxEntry[]): Promise<string[]> {
    const ids = entries.map(() => randomUUID());
    // Each value within its column (ipn-notification.entity.ts), whatever was sent. Almost every
    // batch is storable as sent: one scan of its JSON tells, and only a batch that is not has
    // every string cleaned.
    let rows = this.rowsOf(entries, ids, false);
    if (mayHoldUnstorableText(rows.json) || entries.some((entry) => nestedTooDeep(entry.payload))) {
      rows = this.rowsOf(entries, ids, true);
    }
    const dueAt = Date.now() + HANDOVER_SECONDS * 1000;
    const signal = encodeInboxSignal({
      dueAt,
      rows: entries.flatMap((entry, i) =>
        entry.status === 'received'
          ? // The job's de-duplication key: the tracking id as stored, else the row's id.
            [
              {
                id: ids[i],
                orderKey: rows.trackingIds[i] ?? ids[i],
                traceParent: entry.traceParent ?? null,
              },
            ]
          : [],
      ),
    });
    // The due time as ISO text: the driver formats a Date in JavaScript, field by field.
    await runPrepared(this.dataSource, STORE, [rows.json, new Date(dueAt).toISOString(), signal]);
    return ids;
  }

  /** The batch as STORE's JSON, every value cut to its column, and cleaned too when `clean`. */
  private rowsOf(
    entries: InboxEntry[],
    ids: string[],
    clean: boolean,
  ): { json: string; trackingIds: (string | null)[] } {
    const text: (value: string | null, max: number) => string | null = clean
      ? storableNullable
      : cutText;
    const trackingIds = entries.map((entry) => text(entry.orderTrackingId, 100));
    const rows = entries.map((entry, i) => [
      ids[i],
      trackingIds[i],
      text(entry.merchantReference, 150),
      text(entry.notificationType, 32),
      text(entry.httpMethod, 8),
      clean ? storableJson(entry.payload, MAX_PAYLOAD_DEPTH) : entry.payload,
      text(entry.remoteAddress, 64),
      entry.status,
      text(entry.lastError, NOTIFICATION_LAST_ERROR_MAX_LENGTH),
      entry.traceParent ?? null,
      entry.gatewayAccount ?? null,
    ]);
    return { json: JSON.stringify(rows), trackingIds };
  }
}
