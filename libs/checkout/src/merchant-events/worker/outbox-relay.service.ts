import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { COMMIT_WITHOUT_FLUSH_WAIT, PreparedStatement, runPrepared } from '@app/persistence';
import { JobProducer } from '@app/queues';
import { SKIPPED_NO_URL } from '../delivery-state';

/** Marks a batch of unrelayed rows relayed and skipped, with the reason given. */
const SKIP_UNRELAYED: PreparedStatement = {
  name: 'outbox-skip-unrelayed',
  text: `UPDATE outbox_events SET relayed_at = now(), last_error = $2
          WHERE id IN (SELECT id FROM outbox_events WHERE relayed_at IS NULL
                        ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED)
            AND ${COMMIT_WITHOUT_FLUSH_WAIT}
          RETURNING id`,
};

/** Rows per transaction: small enough that a batch holds its locks only briefly. */
const BATCH_SIZE = 100;
/** The relay looks at least this often, even when the general sweep interval is longer. */
const MAX_RELAY_INTERVAL_MS = 500;

/**
 * Moves committed outbox rows onto the merchant-events queue. Rows are claimed with
 * FOR UPDATE SKIP LOCKED, queued, and marked relayed in the same transaction, so replicas never
 * relay one row twice. If the process dies after queueing but before the commit, the row is
 * queued again later under the same job id, which BullMQ de-duplicates: never lost, never doubled.
 * While the queue is unreachable the transaction rolls back and the rows wait.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(OutboxRelay.name);
  private readonly intervalMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private lastProblem = '';
  private warnedNoUrl = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly jobs: JobProducer,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {
    this.intervalMs = Math.min(config.sweepIntervalMs, MAX_RELAY_INTERVAL_MS);
  }

  onApplicationBootstrap(): void {
    this.schedule(0);
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.round().finally(() => this.schedule(this.intervalMs));
    }, delayMs);
  }

  private async round(): Promise<void> {
    try {
      while (!this.stopped && (await this.relayBatch()) === BATCH_SIZE) {
        // A full batch means more are waiting: keep going without waiting for the timer.
      }
      if (this.lastProblem) this.logger.log('outbox relay: queue reachable again');
      this.lastProblem = '';
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // The same outage fails every round; say it once.
      if (message !== this.lastProblem) {
        this.logger.warn(`outbox relay paused, rows stay unrelayed: ${message}`);
      }
      this.lastProblem = message;
    }
  }

  /** Relays one batch of unrelayed rows; returns how many it queued (or marked skipped). */
  async relayBatch(): Promise<number> {
    if (!this.config.orderWebhookUrl) return this.skipBatch();
    return this.dataSource.transaction(async (manager) => {
      const rows: { id: string }[] = await manager.query(
        `SELECT id FROM outbox_events WHERE relayed_at IS NULL
         ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [BATCH_SIZE],
      );
      if (rows.length === 0) return 0;
      // The producer fails fast while the queue is down, so the row locks are not held long.
      await this.jobs.addBulk(
        'deliver-event',
        rows.map(({ id }) => ({ eventId: id })),
      );
      await manager.query(
        'UPDATE outbox_events SET relayed_at = now() WHERE id = ANY($1::uuid[])',
        [rows.map((row) => row.id)],
      );
      return rows.length;
    });
  }

  /**
   * With no ORDER_WEBHOOK_URL there is nowhere to deliver: rows are marked skipped here, in one
   * statement per batch, instead of each costing a job that would find out the same. They stay
   * listed and can be redelivered by an admin once a URL is set.
   */
  private async skipBatch(): Promise<number> {
    const skipped = (
      await runPrepared(this.dataSource, SKIP_UNRELAYED, [BATCH_SIZE, SKIPPED_NO_URL])
    ).length;
    if (skipped > 0 && !this.warnedNoUrl) {
      this.logger.warn(
        'merchant events are kept but not sent: ORDER_WEBHOOK_URL is not configured (an admin can redeliver them once it is)',
      );
      this.warnedNoUrl = true;
    }
    return skipped;
  }
}
