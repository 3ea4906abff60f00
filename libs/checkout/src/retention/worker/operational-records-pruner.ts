import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { counter } from '@app/common';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { PruneOperationalRecordsData, QueueJob, QueueJobHandler } from '@app/queues';

/** What retention removes, each kind named as in the metric and the log. */
export type RetainedKind =
  | 'notifications'
  | 'merchant_events'
  | 'webhook_messages'
  | 'webhook_deliveries'
  | 'idempotency_keys'
  | 'rate_limit_windows'
  | 'lookup_reservations'
  | 'operator_sessions';

export type PruneReport = Record<RetainedKind, number>;

/** A pass stops a kind after this many batches; the next pass (ten minutes on) goes on. */
const MAX_BATCHES_PER_PASS = 200;

const removed = counter({
  name: 'retention_removed_rows_total',
  help: 'Operational rows removed by retention, per kind (settled notifications, delivered merchant events with their messages and attempts, expired idempotency keys, lapsed rate windows and lookup reservations, ended console sessions).',
  labelNames: ['kind'] as const,
});

/**
 * Settled notifications: applied or ignored (open, unmatched and failed ones stay for the relay and
 * the operator). Read oldest first on (status, received_at).
 */
const NOTIFICATIONS = `
  DELETE FROM ipn_notifications WHERE id IN (
    SELECT id FROM ipn_notifications
     WHERE status IN ('applied', 'ignored') AND received_at < now() - make_interval(days => $2)
     ORDER BY status, received_at LIMIT $1)`;

/**
 * Merchant events handed to their endpoints (relayed) with no message still pending; locked so a
 * redelivery of the same event waits for the pass (and then finds it gone).
 */
const MERCHANT_EVENTS_BATCH = `
  SELECT e.id FROM outbox_events e
   WHERE e.created_at < now() - make_interval(days => $2) AND e.relayed_at IS NOT NULL
     AND NOT EXISTS (SELECT 1 FROM webhook_messages m WHERE m.event_id = e.id AND m.state = 'pending')
   ORDER BY e.created_at, e.id LIMIT $1
   FOR UPDATE OF e SKIP LOCKED`;

const IDEMPOTENCY_KEYS = `
  DELETE FROM idempotency_keys WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM idempotency_keys
     WHERE expires_at < now() - make_interval(days => $2) ORDER BY expires_at LIMIT $1))`;

/** Coordination rows matter only while they run; a minute's margin covers clock skew. */
const RATE_LIMIT_WINDOWS = `
  DELETE FROM rate_limit_windows WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM rate_limit_windows
     WHERE window_ends < now() - interval '1 minute' ORDER BY window_ends LIMIT $1))`;

/**
 * Console sessions a day past their absolute end (revoked or idle ones end sooner): the audit
 * trail keeps every sign-in and sign-out.
 */
const OPERATOR_SESSIONS = `
  DELETE FROM operator_sessions WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM operator_sessions
     WHERE expires_at < now() - interval '1 day' ORDER BY expires_at LIMIT $1))`;

const LOOKUP_RESERVATIONS = `
  DELETE FROM lookup_reservations WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM lookup_reservations
     WHERE reserved_until < now() - interval '1 minute' ORDER BY reserved_until LIMIT $1))`;

/**
 * Removes the operational records that are past their retention (RETENTION_*), in batches of
 * RETENTION_BATCH_SIZE rows, each its own short transaction, so no lock is held for long and a
 * busy table keeps taking writes. Orders, attempts, refunds, timelines, subscription charges and
 * reconciliation reports are the merchant's record and are never touched.
 */
@Injectable()
@QueueJob('prune-operational-records')
export class OperationalRecordsPruner implements QueueJobHandler<'prune-operational-records'> {
  private readonly logger = new Logger(OperationalRecordsPruner.name);

  constructor(
    private readonly dataSource: DataSource,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async run(_data: PruneOperationalRecordsData): Promise<PruneReport> {
    const { notificationsDays, merchantEventsDays, idempotencyKeysDays, batchSize } =
      this.config.retention;
    const report: PruneReport = {
      notifications: 0,
      merchant_events: 0,
      webhook_messages: 0,
      webhook_deliveries: 0,
      idempotency_keys: 0,
      rate_limit_windows: 0,
      lookup_reservations: 0,
      operator_sessions: 0,
    };
    if (notificationsDays > 0) {
      report.notifications = await this.inBatches(() =>
        this.deleted(NOTIFICATIONS, [batchSize, notificationsDays]),
      );
    }
    if (merchantEventsDays > 0) {
      await this.inBatches(async () => {
        const batch = await this.merchantEvents(batchSize, merchantEventsDays);
        report.merchant_events += batch.events;
        report.webhook_messages += batch.messages;
        report.webhook_deliveries += batch.deliveries;
        return batch.events;
      });
    }
    if (idempotencyKeysDays > 0) {
      report.idempotency_keys = await this.inBatches(() =>
        this.deleted(IDEMPOTENCY_KEYS, [batchSize, idempotencyKeysDays]),
      );
    }
    report.rate_limit_windows = await this.inBatches(() =>
      this.deleted(RATE_LIMIT_WINDOWS, [batchSize]),
    );
    report.lookup_reservations = await this.inBatches(() =>
      this.deleted(LOOKUP_RESERVATIONS, [batchSize]),
    );
    report.operator_sessions = await this.inBatches(() =>
      this.deleted(OPERATOR_SESSIONS, [batchSize]),
    );
    for (const [kind, count] of Object.entries(report)) {
      if (count > 0) removed.inc({ kind }, count);
    }
    if (Object.values(report).some((count) => count > 0)) {
      this.logger.log({ removed: report }, 'retention removed operational records');
    }
    return report;
  }

  /** Repeats a batch while it comes back full, up to the pass's bound; the rows removed. */
  private async inBatches(batch: () => Promise<number>): Promise<number> {
    const size = this.config.retention.batchSize;
    let total = 0;
    for (let round = 0; round < MAX_BATCHES_PER_PASS; round += 1) {
      const count = await batch();
      total += count;
      if (count < size) break;
    }
    return total;
  }

  private async deleted(sql: string, parameters: unknown[]): Promise<number> {
    const result = (await this.dataSource.query(sql, parameters)) as [unknown, number];
    return Number(result[1] ?? 0);
  }

  /** One batch of events with their delivery attempts and messages, in one short transaction. */
  private merchantEvents(
    batchSize: number,
    days: number,
  ): Promise<{ events: number; messages: number; deliveries: number }> {
    return this.dataSource.transaction(async (manager) => {
      const rows = (await manager.query(MERCHANT_EVENTS_BATCH, [batchSize, days])) as {
        id: string;
      }[];
      if (rows.length === 0) return { events: 0, messages: 0, deliveries: 0 };
      const ids = rows.map((row) => row.id);
      const count = async (sql: string) =>
        Number(((await manager.query(sql, [ids])) as [unknown, number])[1] ?? 0);
      const deliveries = await count(`DELETE FROM webhook_deliveries WHERE event_id = ANY($1)`);
      const messages = await count(`DELETE FROM webhook_messages WHERE event_id = ANY($1)`);
      const events = await count(`DELETE FROM outbox_events WHERE id = ANY($1)`);
      return { events, messages, deliveries };
    });
  }
}
