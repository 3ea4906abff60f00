import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { REFUNDS_AWAITING_REVERSAL, UNPAID_STATUSES } from '@app/domain';
import { sqlList } from '@app/persistence';
import { claimLeaseSeconds, JobProducer } from '@app/queues';

const BATCH = 500;

/**
 * Postgres, not Redis, holds every poll schedule: each sweep (every SWEEP_INTERVAL_MS, in every
 * worker) claims due polls with a lease (FOR UPDATE SKIP LOCKED, so concurrent sweeps split the
 * work) and queues them. A lost job, a restarted worker or a flushed Redis only delays the work
 * until the lease runs out. (Inbox rows have their own relay, InboxRelay, on the same principle.)
 */
@Injectable()
export class OrderSweeper implements OnApplicationBootstrap, OnModuleDestroy {
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
