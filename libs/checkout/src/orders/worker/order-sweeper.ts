import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { BackgroundLoop } from '@app/common';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { REFUNDS_AWAITING_REVERSAL, UNPAID_STATUSES } from '@app/domain';
import { sqlList } from '@app/persistence';
import { claimLeaseSeconds, JobProducer, LostJobs, QUEUES, RequeuesLostJobs } from '@app/queues';

const BATCH = 500;

/**
 * Orders within a lease of their next poll (or refund follow-up) that a sweep may have claimed:
 * the same two small candidate sets as the sweep's, through the due-poll index.
 */
const LEASED_POLLS = `SELECT o.id, o.poll_attempts, o.status, o.next_poll_at::text AS lease_ends
   FROM orders o
  WHERE o.id IN (SELECT u.id FROM orders u WHERE u.status IN ${sqlList(UNPAID_STATUSES)}
                  UNION ALL
                 SELECT r.order_id FROM refunds r WHERE r.status = ANY($2::varchar[]))
    AND (o.status IN ${sqlList(UNPAID_STATUSES)} OR o.status = 'completed')
    AND o.next_poll_at > now()
    AND o.next_poll_at <= now() + make_interval(secs => $1::double precision)`;

/** Polls whose jobs were lost, due now, unless they moved on since they were read. */
const REQUEUE_LOST_POLLS = `UPDATE orders o SET next_poll_at = now()
   FROM unnest($1::uuid[], $2::int[], $3::timestamptz[]) AS lost(id, poll_attempts, lease_ends)
  WHERE o.id = lost.id AND o.poll_attempts = lost.poll_attempts
    AND o.next_poll_at = lost.lease_ends
 RETURNING o.id`;

interface LeasedPoll {
  id: string;
  poll_attempts: number;
  status: string;
  lease_ends: string;
}

/**
 * Postgres, not Redis, holds every poll schedule: each sweep (every SWEEP_INTERVAL_MS, in every
 * worker) claims due polls with a lease (FOR UPDATE SKIP LOCKED, so concurrent sweeps split the
 * work) and queues them. A lost job, a restarted worker or a flushed Redis only delays the work
 * until the lease runs out. (Inbox rows have their own relay, InboxRelay, on the same principle.)
 */
@Injectable()
@RequeuesLostJobs(QUEUES.orderSync, 'polls and refund follow-ups')
export class OrderSweeper implements BackgroundLoop, LostJobs {
  private readonly logger = new Logger(OrderSweeper.name);
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly jobs: JobProducer,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), this.config.sweepIntervalMs);
    void this.sweep();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** One pass; overlapping calls share the pass under way. */
  sweep(): Promise<void> {
    this.running ??= this.pass().finally(() => (this.running = null));
    return this.running;
  }

  private async pass(): Promise<void> {
    try {
      const polls = await this.queueDuePolls();
      if (polls > 0) this.logger.log({ polls }, 'sweep queued due polls');
    } catch (error) {
      this.logger.warn(`sweep failed: ${(error as Error).message}`);
    }
  }

  /**
   * The order-sync queue's store came back empty: every claimed poll and refund follow-up whose
   * job it no longer holds (job ids name the order and its poll attempt) is due now, and swept at
   * once. An order due within a lease anyway may be looked up that much early, never twice.
   */
  async requeueLost(): Promise<number> {
    const leased = returnedRows<LeasedPoll>(
      (await this.dataSource.query(LEASED_POLLS, [
        claimLeaseSeconds(this.config),
        REFUNDS_AWAITING_REVERSAL,
      ])) as unknown[],
    );
    const jobOf = (row: LeasedPoll) => ({ orderId: row.id, pollAttempt: row.poll_attempts });
    const refunds = leased.filter((row) => row.status === 'completed');
    const unpaid = leased.filter((row) => row.status !== 'completed');
    const lostIds = new Set(
      [
        ...(await this.jobs.notHeld('sync-order', unpaid.map(jobOf))),
        ...(await this.jobs.notHeld('follow-refund', refunds.map(jobOf))),
      ].map((job) => job.orderId),
    );
    const lost = leased.filter((row) => lostIds.has(row.id));
    if (lost.length === 0) return 0;
    const requeued = returnedRows<{ id: string }>(
      (await this.dataSource.query(REQUEUE_LOST_POLLS, [
        lost.map((row) => row.id),
        lost.map((row) => row.poll_attempts),
        lost.map((row) => row.lease_ends),
      ])) as unknown[],
    );
    void this.sweepAfterward(requeued.length);
    return requeued.length;
  }

  /** Passes enough for `count` rows made due, after the pass under way (its claim came before). */
  private async sweepAfterward(count: number): Promise<void> {
    await this.running;
    for (let pass = 0; pass <= Math.ceil(count / BATCH); pass += 1) await this.sweep();
  }

  private async queueDuePolls(): Promise<number> {
    const rows = (await this.dataSource.query(
      // The candidates come from two small sets, unpaid orders (their partial index) and open
      // refunds, never from the completed orders of the whole history; the conditions below
      // decide which of them are due.
      `WITH due AS (
         SELECT o.id FROM orders o
          WHERE o.id IN (SELECT u.id FROM orders u WHERE u.status IN ${sqlList(UNPAID_STATUSES)}
                          UNION ALL
                         SELECT r.order_id FROM refunds r WHERE r.status = ANY($4::varchar[]))
            AND ((o.status IN ${sqlList(UNPAID_STATUSES)}
                 AND (o.next_poll_at <= now()
                      OR (o.next_poll_at IS NULL
                          AND (o.submission_status = 'unknown'
                               OR COALESCE(o.attempt_started_at, o.created_at)
                                  <= now() - make_interval(secs => $1::double precision)))))
             OR (o.status = 'completed'
                 AND EXISTS (SELECT 1 FROM refunds r
                              WHERE r.order_id = o.id AND r.status = ANY($4::varchar[]))
                 AND (o.next_poll_at <= now() OR (o.next_poll_at IS NULL AND NOT o.needs_review))))
          ORDER BY o.next_poll_at NULLS FIRST
          LIMIT $2
          FOR UPDATE OF o SKIP LOCKED)
       UPDATE orders o
          SET next_poll_at = now() + make_interval(secs => $3::double precision)
         FROM due WHERE o.id = due.id
       RETURNING o.id, o.poll_attempts, o.status`,
      [
        this.config.pollScheduleSeconds[0] ?? 30,
        BATCH,
        claimLeaseSeconds(this.config),
        REFUNDS_AWAITING_REVERSAL,
      ],
    )) as unknown[];
    const claimed = returnedRows<{ id: string; poll_attempts: number; status: string }>(rows);
    if (claimed.length === 0) return 0;
    try {
      // A completed order is due only for its refund: the refunds feature follows that up.
      const refunds = claimed.filter((row) => row.status === 'completed');
      const unpaid = claimed.filter((row) => row.status !== 'completed');
      await this.jobs.addBulk(
        'sync-order',
        unpaid.map((row) => ({ orderId: row.id, pollAttempt: row.poll_attempts })),
      );
      await this.jobs.addBulk(
        'follow-refund',
        refunds.map((row) => ({ orderId: row.id, pollAttempt: row.poll_attempts })),
      );
    } catch (error) {
      // The queue is unreachable: give the claims back so the next sweep takes them at once.
      await this.dataSource.query(
        `UPDATE orders SET next_poll_at = now() WHERE id = ANY($1::uuid[])`,
        [claimed.map((row) => row.id)],
      );
      throw error;
    }
    return claimed.length;
  }
}

/** pg answers an UPDATE ... RETURNING through TypeORM as [rows, affected]. */
function returnedRows<T>(result: unknown[]): T[] {
  return (Array.isArray(result[0]) ? result[0] : result) as T[];
}
