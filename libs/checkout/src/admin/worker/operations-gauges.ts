import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { JobType } from 'bullmq';
import { DataSource } from 'typeorm';
import { gauge } from '@app/common';
import { OPEN_NOTIFICATION_STATUSES_SQL } from '@app/persistence';
import { JobProducer, QUEUE_NAMES } from '@app/queues';

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

interface Snapshot {
  inbox_backlog: number;
  inbox_oldest_seconds: number;
  outbox_backlog: number;
  outbox_oldest_seconds: number;
  orders_needing_review: number;
  unmatched_payments_open: number;
}

/**
 * What is waiting, read from the database and the queues when Prometheus scrapes the worker:
 * notifications not yet verified and merchant events not yet delivered, with the age of the
 * oldest; jobs per queue and state (failed = dead letters); orders flagged for a person;
 * payments without an order still to settle. These
 * describe the deployment, not the process: every worker replica reports the same figures, so
 * dashboards and alerts take max() across them. (The api does not serve them.)
 */
/** The worker app whose gauges answer a scrape (the e2e suites boot several in one process). */
let current: { read(): Promise<Snapshot>; jobs: JobProducer; owner: object } | null = null;

@Injectable()
export class OperationsGauges implements OnModuleInit, OnModuleDestroy {
  /** The read under way: the gauges of one scrape collect together and share it. */
  private reading: Promise<Snapshot> | null = null;

  constructor(
    private readonly dataSource: DataSource,
    readonly jobs: JobProducer,
  ) {}

  onModuleInit(): void {
    // Gauges are registered once per process; they read through whichever worker app runs now.
    current = { read: () => this.read(), jobs: this.jobs, owner: this };
    const fromSnapshot = (name: string, field: keyof Snapshot, help: string) => {
      gauge({
        name,
        help,
        collect: async function (this: { set(value: number): void }) {
          const snapshot = await current?.read().catch(() => null);
          if (snapshot) this.set(snapshot[field]);
        },
      });
    };
    fromSnapshot(
      'notification_inbox_backlog',
      'inbox_backlog',
      'Notifications stored but not yet verified (received, queued or unmatched).',
    );
    fromSnapshot(
      'notification_inbox_oldest_seconds',
      'inbox_oldest_seconds',
      'Age of the oldest notification waiting for verification, received or queued (0 when none); unmatched ones, which wait for their order by design, are left out.',
    );
    fromSnapshot(
      'merchant_event_backlog',
      'outbox_backlog',
      'Webhook deliveries still to be made: events not yet handed to their endpoints, and messages pending for enabled endpoints (disabled endpoints hold theirs; skipped and given-up ones are not counted).',
    );
    fromSnapshot(
      'merchant_event_oldest_seconds',
      'outbox_oldest_seconds',
      'Age of the oldest merchant event still to be delivered to an enabled endpoint (0 when none).',
    );
    fromSnapshot(
      'orders_needing_review',
      'orders_needing_review',
      'Orders flagged for a person to look at.',
    );
    fromSnapshot(
      'unmatched_payments_open',
      'unmatched_payments_open',
      'Payments without an order not yet settled: money the gateway took for no order of ours, waiting for an operator to match or refund it.',
    );
    gauge({
      name: 'queue_jobs',
      help: 'Jobs per queue and state (waiting, active, delayed, failed: failed jobs are the dead letters).',
      labelNames: ['queue', 'state'] as const,
      collect: async function (this: {
        set(labels: { queue: string; state: string }, value: number): void;
      }) {
        await Promise.all(
          QUEUE_NAMES.map(async (queue) => {
            const counts = await current?.jobs
              .queue(queue)
              .getJobCounts('wait', 'paused' as JobType, 'active', 'delayed', 'failed')
              .catch(() => null);
            if (!counts) return;
            const waiting = (counts.wait ?? 0) + (counts.paused ?? 0);
            for (const state of QUEUE_STATES) {
              this.set({ queue, state }, state === 'waiting' ? waiting : (counts[state] ?? 0));
            }
          }),
        );
      },
    });
  }

  onModuleDestroy(): void {
    if (current?.owner === this) current = null;
  }

  private read(): Promise<Snapshot> {
    this.reading ??= this.query().finally(() => (this.reading = null));
    return this.reading;
  }

  private async query(): Promise<Snapshot> {
    const [row] = (await this.dataSource.query(
      `SELECT
         (SELECT count(*) FROM ipn_notifications
           WHERE status IN ${OPEN_NOTIFICATION_STATUSES_SQL})::int AS inbox_backlog,
         COALESCE((SELECT EXTRACT(EPOCH FROM now() - min(received_at)) FROM ipn_notifications
           WHERE status IN ('received', 'queued')), 0)::float8 AS inbox_oldest_seconds,
         ((SELECT count(*) FROM outbox_events WHERE relayed_at IS NULL)
          + (SELECT count(*) FROM webhook_messages m JOIN webhook_endpoints ep
               ON ep.id = m.endpoint_id AND ep.disabled_at IS NULL
              WHERE m.state = 'pending'))::int AS outbox_backlog,
         COALESCE(EXTRACT(EPOCH FROM now() - LEAST(
           (SELECT min(created_at) FROM outbox_events WHERE relayed_at IS NULL),
           (SELECT min(m.event_created_at) FROM webhook_messages m JOIN webhook_endpoints ep
               ON ep.id = m.endpoint_id AND ep.disabled_at IS NULL
              WHERE m.state = 'pending'))), 0)::float8 AS outbox_oldest_seconds,
         (SELECT count(*) FROM orders WHERE needs_review)::int AS orders_needing_review,
         (SELECT count(*) FROM unmatched_payments
           WHERE status = 'open')::int AS unmatched_payments_open`,
    )) as Snapshot[];
    return row;
  }
}
