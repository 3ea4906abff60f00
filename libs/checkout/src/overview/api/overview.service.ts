import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { CheckoutError } from '../../errors/checkout-error';
import { offsetMinutes, timeZoneProblem } from '../../http/time-zone';
import {
  activityOf,
  activityParameters,
  ActivityMeasure,
  LAG_BIN_KEYS,
  LAG_BINS_MS,
  LAG_MORE,
  LAG_OPEN,
  LIVE_MAX_MS,
} from '../activity';

export const OVERVIEW_WINDOWS = ['hour', 'day', 'month'] as const;
export type OverviewWindow = (typeof OVERVIEW_WINDOWS)[number];

/** The most failure reasons and currencies a total lists (the largest first, then by name). */
export const OVERVIEW_KEYS_MAX = 20;

/** Each window's buckets: the last 60 minutes, the last 24 hours, the last 30 local days. */
const BUCKETS: Record<OverviewWindow, { grain: 'minute' | 'hour' | 'day'; count: number }> = {
  hour: { grain: 'minute', count: 60 },
  day: { grain: 'hour', count: 24 },
  month: { grain: 'day', count: 30 },
};

export interface OverviewBucket {
  starts_at: string;
  checkouts: number;
  paid: number;
  failed: number;
  cancelled: number;
  expired: number;
  refund_requests: number;
  refunds: number;
  notifications: number;
  notifications_open: number;
  lag_p95_ms: number | null;
  webhook_delivered: number;
  webhook_failed: number;
}

export interface MoneyTotal {
  currency: string;
  count: number;
  amount: string;
}

export interface OverviewTotals extends Omit<OverviewBucket, 'starts_at'> {
  pending_now: number;
  reversals: number;
  hosted: number;
  mobile_money: number;
  paid_amounts: MoneyTotal[];
  refund_amounts: MoneyTotal[];
  reversal_amounts: MoneyTotal[];
  failures_by_reason: { reason: string; count: number }[];
  notification_lag: { under_ms: number | null; count: number }[];
}

export interface Overview {
  window: OverviewWindow;
  bucket: 'minute' | 'hour' | 'day';
  tz: string;
  from: string;
  to: string;
  summed_through: string | null;
  complete: boolean;
  buckets: OverviewBucket[];
  totals: OverviewTotals;
}

interface Bounds {
  now: Date;
  from: Date;
  rolled_through: Date | null;
  slots: Date[];
}

/**
 * The window's start and its bucket starts (days in `$2`, minutes and hours in UTC), and where
 * the summing of hours stands.
 */
const BOUNDS = `
  WITH w AS (
    SELECT now() AS now,
           CASE $1 WHEN 'minute' THEN date_trunc('minute', now(), 'UTC') - interval '59 minutes'
                   WHEN 'hour' THEN date_trunc('hour', now(), 'UTC') - interval '23 hours'
                   ELSE (date_trunc('day', now() AT TIME ZONE $2) - interval '29 days') AT TIME ZONE $2
           END AS start)
  SELECT w.now, w.start AS from,
         (SELECT rolled_through FROM activity_rollup WHERE name = 'hours') AS rolled_through,
         ARRAY(SELECT s AT TIME ZONE $2
                 FROM generate_series(w.start AT TIME ZONE $2, w.now AT TIME ZONE $2,
                                      ('1 ' || $1)::interval) s) AS slots
    FROM w`;

/**
 * The summed hours of [$8, $9) and the live activity of [$1, $2) per $7 (activityParameters),
 * grouped into the window's buckets ($10 in zone $11), with the window's totals (the rows
 * without a bucket).
 */
const ACTIVITY = `
  SELECT date_trunc($10, x.bucket, $11) AS bucket, x.measure, x.key,
         sum(x.count)::int AS count, sum(x.amount)::text AS amount
    FROM (
      SELECT t.hour AS bucket, t.measure, t.key, t.count, t.amount
        FROM activity_totals t WHERE t.hour >= $8 AND t.hour < $9
      UNION ALL
      SELECT a.bucket, a.measure, a.key, a.count, a.amount FROM (${activityOf()}) a
    ) x
   GROUP BY GROUPING SETS ((date_trunc($10, x.bucket, $11), x.measure, x.key), (x.measure, x.key))`;

/** Orders still waiting for their payment, made in the window (the partial index on pending). */
const PENDING_NOW = `SELECT count(*)::int AS n FROM orders WHERE status = 'pending' AND created_at >= $1`;

interface ActivityRow {
  bucket: Date | null;
  measure: ActivityMeasure;
  key: string;
  count: number;
  amount: string | null;
}

/**
 * The overview: what happened in the last hour, day or month, per minute, hour or local day.
 * Hours the worker has summed come from activity_totals; the rest (the last ten minutes to an
 * hour, normally) is counted live, at most LIVE_MAX_MS of it. Bounded by the buckets asked.
 */
@Injectable()
export class OverviewService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async overview(window: OverviewWindow, tzAsked?: string): Promise<Overview> {
    const tz = tzAsked ?? this.config.reportTimeZone;
    const problem = timeZoneProblem(tz);
    if (problem) throw CheckoutError.invalid([problem]);
    // Days are made of the summed hours: a zone must start its days on a UTC hour.
    if (offsetMinutes(tz, new Date()) % 60 !== 0) {
      throw CheckoutError.invalid([
        { field: 'tz', reason: 'must be a whole number of hours from UTC (the totals are hourly)' },
      ]);
    }
    const { grain } = BUCKETS[window];
    const zone = grain === 'day' ? tz : 'UTC';
    return this.dataSource.transaction('REPEATABLE READ', async (manager) => {
      const [bounds] = (await manager.query(BOUNDS, [grain, zone])) as Bounds[];
      const { now, from } = bounds;
      // Minutes are always live; hours and days read the summed hours up to rolled_through.
      const summedTo =
        grain === 'minute' || !bounds.rolled_through
          ? from
          : new Date(
              Math.min(Math.max(bounds.rolled_through.getTime(), from.getTime()), now.getTime()),
            );
      const liveFrom = new Date(Math.max(summedTo.getTime(), now.getTime() - LIVE_MAX_MS));
      const rows = (await manager.query(ACTIVITY, [
        ...activityParameters(liveFrom, now, grain === 'minute' ? 'minute' : 'hour'),
        from.toISOString(),
        summedTo.toISOString(),
        grain,
        zone,
      ])) as ActivityRow[];
      const [pending] = (await manager.query(PENDING_NOW, [from.toISOString()])) as { n: number }[];
      return {
        window,
        bucket: grain,
        tz,
        from: from.toISOString(),
        to: now.toISOString(),
        summed_through: bounds.rolled_through?.toISOString() ?? null,
        complete: liveFrom.getTime() === summedTo.getTime(),
        buckets: bucketsOf(bounds.slots, rows),
        totals: totalsOf(rows, pending.n),
      };
    });
  }
}

const count = (rows: ActivityRow[], measure: ActivityMeasure, key?: string) =>
  rows
    .filter((row) => row.measure === measure && (key === undefined || row.key === key))
    .reduce((sum, row) => sum + row.count, 0);

function bucketOf(rows: ActivityRow[]): Omit<OverviewBucket, 'starts_at'> {
  const lag = rows.filter((row) => row.measure === 'notification_lag');
  const open = count(lag, 'notification_lag', LAG_OPEN);
  return {
    checkouts: count(rows, 'checkouts'),
    paid: count(rows, 'payment'),
    failed: count(rows, 'failed'),
    cancelled: count(rows, 'cancelled'),
    expired: count(rows, 'expired'),
    refund_requests: count(rows, 'refund_requests'),
    refunds: count(rows, 'refund'),
    notifications: count(lag, 'notification_lag'),
    notifications_open: open,
    lag_p95_ms: percentileUnder(lag, 0.95),
    webhook_delivered: count(rows, 'webhook_attempts', 'delivered'),
    webhook_failed: count(rows, 'webhook_attempts', 'failed'),
  };
}

/**
 * The upper bound of the lag bin holding the given share of applied notifications: that share
 * were applied in less than it. Null when none was, or when it lies past the last bin.
 */
export function percentileUnder(
  lag: { key: string; count: number }[],
  share: number,
): number | null {
  const verified = lag.filter((row) => LAG_BIN_KEYS.includes(row.key));
  const total = verified.reduce((sum, row) => sum + row.count, 0);
  if (total === 0) return null;
  let seen = 0;
  for (const bound of LAG_BINS_MS) {
    seen += verified.filter((row) => row.key === String(bound)).reduce((s, r) => s + r.count, 0);
    if (seen >= share * total) return bound;
  }
  return null;
}

function bucketsOf(slots: Date[], rows: ActivityRow[]): OverviewBucket[] {
  const byStart = new Map<number, ActivityRow[]>();
  for (const row of rows) {
    if (!row.bucket) continue;
    const at = row.bucket.getTime();
    byStart.set(at, [...(byStart.get(at) ?? []), row]);
  }
  return slots.map((slot) => ({
    starts_at: slot.toISOString(),
    ...bucketOf(byStart.get(slot.getTime()) ?? []),
  }));
}

const money = (rows: ActivityRow[], measure: ActivityMeasure): MoneyTotal[] =>
  rows
    .filter((row) => row.measure === measure)
    .map((row) => ({ currency: row.key, count: row.count, amount: row.amount ?? '0.00' }))
    .sort((a, b) => b.count - a.count || a.currency.localeCompare(b.currency))
    .slice(0, OVERVIEW_KEYS_MAX);

function totalsOf(rows: ActivityRow[], pendingNow: number): OverviewTotals {
  const totals = rows.filter((row) => row.bucket === null);
  return {
    ...bucketOf(totals),
    pending_now: pendingNow,
    reversals: count(totals, 'reversal'),
    hosted: count(totals, 'checkouts', 'hosted'),
    mobile_money: count(totals, 'checkouts', 'mobile_money'),
    paid_amounts: money(totals, 'payment'),
    refund_amounts: money(totals, 'refund'),
    reversal_amounts: money(totals, 'reversal'),
    failures_by_reason: totals
      .filter((row) => row.measure === 'failed')
      .map((row) => ({ reason: row.key, count: row.count }))
      .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason))
      .slice(0, OVERVIEW_KEYS_MAX),
    notification_lag: [...LAG_BINS_MS.map(String), LAG_MORE].map((key) => ({
      under_ms: key === LAG_MORE ? null : Number(key),
      count: count(totals, 'notification_lag', key),
    })),
  };
}
