import { Injectable, Logger } from '@nestjs/common';
import { DataSource, QueryRunner } from 'typeorm';
import { QueueJob, QueueJobHandler, SumActivityData } from '@app/queues';
import { activityOf, activityParameters, ORDER_MEASURES, SETTLING_MS } from '../activity';

/** Hours summed per statement while catching up with history (a migrated database's year). */
const CATCH_UP_STEP_MS = 7 * 24 * 3_600_000;
/** One run stops starting steps after this long; the next run (a minute on) goes on. */
const RUN_BUDGET_MS = 40_000;
/**
 * Changes are read again from this far before the last read: a row committed a little after the
 * time its updated_at carries is still seen.
 */
const CHANGES_OVERLAP_MS = 2 * 60_000;

interface RollupState {
  rolled_through: Date;
  changes_read_through: Date;
  now: Date;
}

export interface SumReport {
  hours: number;
  resummed: number;
}

/** The state row, made on the first run: history starts at the oldest order's hour. */
const START = `
  INSERT INTO activity_rollup (name, rolled_through, changes_read_through)
  SELECT 'hours', date_trunc('hour', COALESCE((SELECT min(created_at) FROM orders), now()), 'UTC'), now()
  ON CONFLICT (name) DO NOTHING`;

/** Skipped (null) while another worker holds it: one summer at a time across the deployment. */
const LOCK = `
  SELECT rolled_through, changes_read_through, now() AS now
    FROM activity_rollup WHERE name = 'hours' FOR UPDATE SKIP LOCKED`;

/**
 * The summed hours ($2: before rolled_through) that orders and refunds changed since $1 touch: a
 * payment learned late is dated when it was paid, a refund when the gateway accepted it.
 * Bounded by the changes, through the indexes on updated_at.
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

const ORDER_MEASURES_SQL = `ARRAY[${ORDER_MEASURES.map((m) => `'${m}'`).join(', ')}]`;

/**
 * Keeps activity_totals: sums each hour once it has settled, a week per step while catching up
 * with history, and sums again the order measures of summed hours that late changes touched
 * (notifications and webhook attempts are summed once: retention may remove their rows later).
 * Each step is one transaction holding the state row.
 */
@Injectable()
@QueueJob('sum-activity')
export class ActivitySummer implements QueueJobHandler<'sum-activity'> {
  private readonly logger = new Logger(ActivitySummer.name);

  constructor(private readonly dataSource: DataSource) {}

  async run(_data: SumActivityData): Promise<SumReport> {
    const deadline = Date.now() + RUN_BUDGET_MS;
    const report: SumReport = { hours: 0, resummed: 0 };
    report.resummed = (await this.step((runner, state) => this.sumChanged(runner, state))) ?? 0;
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

  /** The next settled hours (up to a week of them); how many. */
  private async sumNext(runner: QueryRunner, state: RollupState): Promise<number> {
    const settled = floorHour(new Date(state.now.getTime() - SETTLING_MS));
    const from = state.rolled_through;
    if (from >= settled) return 0;
    const to = new Date(Math.min(from.getTime() + CATCH_UP_STEP_MS, settled.getTime()));
    await runner.query(`DELETE FROM activity_totals WHERE hour >= $1 AND hour < $2`, [from, to]);
    await runner.query(
      `INSERT INTO activity_totals (hour, measure, key, count, amount)
       SELECT a.bucket, a.measure, a.key, a.count, a.amount FROM (${activityOf('all')}) a`,
      activityParameters(from, to, 'hour'),
    );
    await runner.query(`UPDATE activity_rollup SET rolled_through = $1 WHERE name = 'hours'`, [to]);
    return (to.getTime() - from.getTime()) / 3_600_000;
  }

  /** The order measures of the summed hours changed since the last read; how many hours. */
  private async sumChanged(runner: QueryRunner, state: RollupState): Promise<number> {
    const since = new Date(state.changes_read_through.getTime() - CHANGES_OVERLAP_MS);
    const hours = (await runner.query(CHANGED_HOURS, [since, state.rolled_through])) as {
      hour: Date;
    }[];
    for (const { hour } of hours) {
      const to = new Date(hour.getTime() + 3_600_000);
      await runner.query(
        `DELETE FROM activity_totals WHERE hour = $1 AND measure = ANY(${ORDER_MEASURES_SQL})`,
        [hour],
      );
      await runner.query(
        `INSERT INTO activity_totals (hour, measure, key, count, amount)
         SELECT a.bucket, a.measure, a.key, a.count, a.amount FROM (${activityOf('orders')}) a`,
        activityParameters(hour, to, 'hour'),
      );
    }
    await runner.query(
      `UPDATE activity_rollup SET changes_read_through = $1 WHERE name = 'hours'`,
      [state.now],
    );
    return hours.length;
  }
}

const floorHour = (at: Date) => new Date(Math.floor(at.getTime() / 3_600_000) * 3_600_000);
