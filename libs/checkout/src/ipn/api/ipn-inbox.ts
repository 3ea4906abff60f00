import { serviceMetrics } from '@app/common';
import { cutText } from '@app/domain';
import { encodeInboxSignal, HANDOVER_SECONDS, INBOX_CHANNEL } from '../inbox-channel';
import { NOTIFICATION_LAST_ERROR_MAX_LENGTH } from '../inbox-limits';
import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { DataSource } from 'typeorm';
import {
  NotificationStatus,
  PreparedStatement,
  asColumns,
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
const MAX_PARALLEL_WRITES = 2;

/**
 * One statement for any number of notifications (a column per array parameter), so it is parsed
 * once per connection. A received row comes due after the handover ($12, HANDOVER_SECONDS from
 * now); an ignored one is done when stored. The signal, which hands the received rows over
 * ($13), goes out in the same statement, so when (and only if) it commits, and only for a batch
 * holding something to relay.
 */
const STORE: PreparedStatement = {
  name: 'inbox-store-handover',
  text: `WITH stored AS (
           INSERT INTO ipn_notifications
             (id, order_tracking_id, merchant_reference, notification_type, http_method, payload,
              remote_address, status, last_error, trace_parent, gateway_account, next_attempt_at,
              processed_at)
           SELECT id, tracking_id, reference, type, method, payload, remote, status, error, trace,
                  account, CASE WHEN status = 'received' THEN $12::timestamptz END,
                  CASE WHEN status = 'received' THEN NULL ELSE now() END
             FROM unnest($1::uuid[], $2::varchar[], $3::varchar[], $4::varchar[], $5::varchar[],
                         $6::jsonb[], $7::varchar[], $8::varchar[], $9::text[], $10::varchar[],
                         $11::varchar[])
                  AS n(id, tracking_id, reference, type, method, payload, remote, status, error,
                       trace, account)
           RETURNING status)
         SELECT pg_notify('${INBOX_CHANNEL}', $13::text)
          WHERE EXISTS (SELECT 1 FROM stored WHERE status = 'received')`,
};

/**
 * The api's side of the notification inbox. Acknowledging costs one INSERT and nothing else: the
 * same statement signals INBOX_CHANNEL with the rows, so a worker puts their jobs on the queue
 * within milliseconds without writing them again (a row the signal did not hand over comes due
 * HANDOVER_SECONDS later and the relay claims it). The api never waits for Redis on this path.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** Deeper than any notification: a payload nested further is cut there. */
const MAX_PAYLOAD_DEPTH = 8;

/**
 * Text as PostgreSQL can keep it: no NUL (text cannot hold one) and no lone surrogate (not
 * UTF-8), each shown as U+FFFD, and at most `max` characters (the column's width). Whatever a
 * sender puts in a notification is then stored, so junk is kept for the operator, never a 500.
 */
export function storableText(value: string, max?: number): string {
  const clean = value.replace(LONE_SURROGATE, '\uFFFD').replaceAll('\u0000', '\uFFFD');
  if (max === undefined || clean.length <= max) return clean;
  return cutText(clean, max);
}

function storableNullable(value: string | null, max: number): string | null {
  return value === null ? null : storableText(value, max);
}

/** The payload with every key and string storable, as jsonb takes it. */
export function storablePayload(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return storableText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_PAYLOAD_DEPTH) return '[nested too deep]';
  if (Array.isArray(value)) return value.map((item) => storablePayload(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, item]) => [
      storableText(key),
      storablePayload(item, depth + 1),
    ]),
  );
}

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
      maxParallel: MAX_PARALLEL_WRITES,
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
    // Each value within its column (ipn-notification.entity.ts), whatever was sent.
    const trackingIds = entries.map((entry) => storableNullable(entry.orderTrackingId, 100));
    const rows = entries.map((entry, i) => [
      ids[i],
      trackingIds[i],
      storableNullable(entry.merchantReference, 150),
      storableNullable(entry.notificationType, 32),
      storableText(entry.httpMethod, 8),
      JSON.stringify(storablePayload(entry.payload)),
      storableNullable(entry.remoteAddress, 64),
      entry.status,
      storableNullable(entry.lastError, NOTIFICATION_LAST_ERROR_MAX_LENGTH),
      entry.traceParent ?? null,
      entry.gatewayAccount ?? null,
    ]);
    const dueAt = Date.now() + HANDOVER_SECONDS * 1000;
    const signal = encodeInboxSignal({
      dueAt,
      rows: entries.flatMap((entry, i) =>
        entry.status === 'received'
          ? // The job's de-duplication key: the tracking id as stored, else the row's id.
            [
              {
                id: ids[i],
                orderKey: trackingIds[i] ?? ids[i],
                traceParent: entry.traceParent ?? null,
              },
            ]
          : [],
      ),
    });
    await runPrepared(this.dataSource, STORE, [...asColumns(rows), new Date(dueAt), signal]);
    return ids;
  }
}
