import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource, QueryRunner } from 'typeorm';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { QueueJob, QueueJobHandler, SumActivityData } from '@app/queues';
import {
  activityOf,
  activityParameters,
  ActivityPart,
  ALL_PARTS,
  measuresOf,
  SETTLING_MS,
} from '../activity';

const HOUR_MS = 3_600_000;
/** Hours summed per statement while catching up with history (a migrated database's year). */
const CATCH_UP_STEP_MS = 7 * 24 * HOUR_MS;
/** Changed hours summed again per transaction. */
const CHANGED_HOURS_PER_STEP = 168;
/** One run stops starting steps after this long; the next run (a minute on) goes on. */
const RUN_BUDGET_MS = 40_000;
/**
 * Changes are read again from this far before the last read: a row committed a while after the
 * time its updated_at carries (set by an app's clock) is still seen.
 */
const CHANGES_OVERLAP_MS = 10 * 60_000;
/** How often the recent hours are summed again whole. */
const RECENT_EVERY_MS = HOUR_MS;

interface RollupState {
  rolled_through: Date;
  changes_read_through: Date;
  recent_summed_at: Date;
  now: Date;
}

export interface SumReport {
  hours: number;
  resummed: number;
  recent: number;
}

/** The state row, made on the first run: history starts at the oldest order's hour. */
const START = `
  INSERT INTO activity_rollup (name, rolled_through, changes_read_through, recent_summed_at)
  SELECT 'hours', date_trunc('hour', COALESCE((SELECT min(created_at) FROM orders), now()), 'UTC'),
         now(), now()
  ON CONFLICT (name) DO NOTHING`;

/** Skipped (null) while another worker holds it: one summer at a time across the deployment. */
const LOCK = `
  SELECT rolled_through, changes_read_through, recent_summed_at, now() AS now
    FROM activity_rollup WHERE name = 'hours' FOR UPDATE SKIP LOCKED`;

/**
 * The summed hours ($2: before rolled_through) that orders and refunds changed since $1 carry a
 * date in now: a payment learned late is dated when it was paid, a refund when the gateway
 * accepted it. Bounded by the changes, through the indexes on updated_at. (A date a change
 * cleared or moved is caught by summing the recent hours again.)
 */
const CHANGED_HOURS = `
  SELECT DISTINCT date_trunc('hour', c.t, 'UTC') AS hour FROM (
    SELECT unnest(ARRAY[o.paid_at, o.failed_at, o.cancelled_at, o.expired_at, o.reversed_at]) AS t
      FROM orders o WHERE o.updated_at >= $1
    UNION ALL
    SELECT unnest(ARRAY[a.paid_at, a.refund_requested_at])
      FROM payment_attempts a JOIN orders ao ON ao.id = a.order_id WHERE ao.updated_at >= $1
    UNION ALL
    SELECT unnest(ARRAY[r.accepted_at, r.reversed_at])
      FROM refunds r WHERE r.updated_at >= $1
  ) c
   WHERE c.t < $2
   ORDER BY 1`;

/**
 * Keeps activity_totals (each step one transaction holding the state row):
 * - sums each hour once it has settled, a week per step while catching up with history;
 * - sums again the order measures of summed hours whose orders or refunds changed since;
 * - every hour, sums again the hours within the poll horizon whole: an order's dates move while
 *   it is polled (a new attempt clears a failure, a notification gets its verdict late).
 *   Notifications only while retention still keeps them; webhook attempts never change.
 */
@Injectable()
@QueueJob('sum-activity')
export class ActivitySummer implements QueueJobHandler<'sum-activity'> {
  private readonly logger = new Logger(ActivitySummer.name);

  constructor(
    private readonly dataSource: DataSource,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async run(_data: SumActivityData): Promise<SumReport> {
    const deadline = Date.now() + RUN_BUDGET_MS;
    const report: SumReport = { hours: 0, resummed: 0, recent: 0 };
    report.resummed = await this.sumChanged();
    report.recent = (await this.step((runner, state) => this.sumRecent(runner, state))) ?? 0;
    while (Date.now() < deadline) {
      const hours = await this.step((runner, state) => this.sumNext(runner, state));
      if (!hours) break;
      report.hours += hours;
    }
    if (report.hours > 1 || report.resummed > 0) {
      this.logger.log({ summed: report }, 'overview totals summed');
    }
    return report;
  }

  private async step(
    work: (runner: QueryRunner, state: RollupState) => Promise<number>,
  ): Promise<number | null> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      await runner.query(START);
      const [state] = (await runner.query(LOCK)) as RollupState[];
      if (!state) {
        await runner.rollbackTransaction();
        return null;
      }
      const done = await work(runner, state);
      await runner.commitTransaction();
      return done;
    } catch (error) {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      throw error;
    } finally {
      await runner.release();
    }
  }

  /** Replaces the totals of `parts` in [from, to) with what the rows hold now. */
  private async sum(runner: QueryRunner, from: Date, to: Date, parts: readonly ActivityPart[]) {
    await runner.query(
      `DELETE FROM activity_totals WHERE hour >= $1 AND hour < $2 AND measure = ANY($3)`,
      [from, to, measuresOf(parts)],
    );
    await runner.query(
      `INSERT INTO activity_totals (hour, measure, key, count, amount)
       SELECT a.bucket, a.measure, a.key, a.count, a.amount FROM (${activityOf(parts)}) a`,
      activityParameters(from, to, 'hour'),
    );
  }

  /** The next settled hours (up to a week of them); how many. */
  private async sumNext(runner: QueryRunner, state: RollupState): Promise<number> {
    const settled = floorHour(new Date(state.now.getTime() - SETTLING_MS));
    const from = state.rolled_through;
    if (from >= settled) return 0;
    const to = new Date(Math.min(from.getTime() + CATCH_UP_STEP_MS, settled.getTime()));
    await this.sum(runner, from, to, ALL_PARTS);
    await runner.query(`UPDATE activity_rollup SET rolled_through = $1 WHERE name = 'hours'`, [to]);
    return (to.getTime() - from.getTime()) / HOUR_MS;
  }

  /**
   * The order measures of the summed hours changed since the last read, a bounded number of hours
   * per transaction; the read is marked done after the last. How many hours.
   */
  private async sumChanged(): Promise<number> {
    let hours: Date[] | null = null;
    let readAt: Date | null = null;
    let done = 0;
    for (;;) {
      const step = await this.step(async (runner, state) => {
        if (!hours) {
          const since = new Date(state.changes_read_through.getTime() - CHANGES_OVERLAP_MS);
          const rows = (await runner.query(CHANGED_HOURS, [since, state.rolled_through])) as {
            hour: Date;
          }[];
          hours = rows.map((row) => row.hour);
          readAt = state.now;
        }
        const batch = hours.splice(0, CHANGED_HOURS_PER_STEP);
        for (const hour of batch) {
          await this.sum(runner, hour, new Date(hour.getTime() + HOUR_MS), ['orders']);
        }
        if (hours.length === 0) {
          await runner.query(
            `UPDATE activity_rollup SET changes_read_through = $1 WHERE name = 'hours'`,
            [readAt],
          );
        }
        return batch.length;
      });
      if (step === null) return done;
      done += step;
      if (hours === null || (hours as Date[]).length === 0) return done;
    }
  }

  /** Once an hour, the summed hours within the poll horizon, whole; how many. */
  private async sumRecent(runner: QueryRunner, state: RollupState): Promise<number> {
    if (state.now.getTime() - state.recent_summed_at.getTime() < RECENT_EVERY_MS) return 0;
    const horizonMs = this.config.pollHorizonHours * HOUR_MS;
    const to = state.rolled_through;
    const from = floorHour(new Date(to.getTime() - horizonMs));
    // Notifications only while retention keeps every one of these hours' rows.
    const keptDays = this.config.retention.notificationsDays;
    const parts: ActivityPart[] =
      keptDays === 0 || keptDays * 24 * HOUR_MS > horizonMs + 2 * HOUR_MS
        ? ['orders', 'notifications']
        : ['orders'];
    if (from < to) await this.sum(runner, from, to, parts);
    await runner.query(`UPDATE activity_rollup SET recent_summed_at = $1 WHERE name = 'hours'`, [
      state.now,
    ]);
    return Math.max(0, (to.getTime() - from.getTime()) / HOUR_MS);
  }
}

const floorHour = (at: Date) => new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);
