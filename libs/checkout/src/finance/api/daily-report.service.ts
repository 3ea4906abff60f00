import { Injectable } from '@nestjs/common';
import { Readable } from 'node:stream';
import { CheckoutError } from '../../errors/checkout-error';
import { DailyReportQuery } from './finance.dto';
import { FinanceSnapshots } from './finance-request';
import { ENDED_ORDERS, inert, MOVEMENTS_WITH_ORDERS, movementParameters } from '../money-movements';

/** One local day × currency × payment method. Sums are decimal strings; refunds are negative. */
export interface DailyReportRow {
  day: string;
  currency: string;
  payment_method: string | null;
  payments: number;
  payments_amount: string;
  refunds: number;
  refunds_amount: string;
  reversals: number;
  reversals_amount: string;
  net_amount: string;
  failed: number;
  cancelled: number;
}

/**
 * The most rows one report answers (a year of days × currencies × payment methods stays well
 * under it); a range with more is refused, naming `to`: ask for less, or one currency.
 */
export const DAILY_REPORT_ROWS_MAX = 10_000;

export interface DailyReport {
  from: string;
  to: string;
  tz: string;
  currency: string | null;
  account: string | null;
  rows: DailyReportRow[];
}

export const DAILY_REPORT_COLUMNS: (keyof DailyReportRow)[] = [
  'day',
  'currency',
  'payment_method',
  'payments',
  'payments_amount',
  'refunds',
  'refunds_amount',
  'reversals',
  'reversals_amount',
  'net_amount',
  'failed',
  'cancelled',
];

/**
 * The movements of the export summed per local day (the snapshot's TimeZone makes ::date the
 * local day), with the orders that failed or were cancelled that day; each part read through its
 * date index, so the work is bounded by the days asked.
 */
const DAILY = `
  SELECT k.day::text AS day, k.currency, k.payment_method,
         count(*) FILTER (WHERE k.kind = 'payment')::int AS payments,
         COALESCE(sum(k.amount) FILTER (WHERE k.kind = 'payment'), 0.00)::text AS payments_amount,
         count(*) FILTER (WHERE k.kind = 'refund')::int AS refunds,
         COALESCE(sum(k.amount) FILTER (WHERE k.kind = 'refund'), 0.00)::text AS refunds_amount,
         count(*) FILTER (WHERE k.kind = 'reversal')::int AS reversals,
         COALESCE(sum(k.amount) FILTER (WHERE k.kind = 'reversal'), 0.00)::text AS reversals_amount,
         COALESCE(sum(k.amount) FILTER (WHERE k.kind IN ('payment', 'refund', 'reversal')), 0.00)::text
           AS net_amount,
         count(*) FILTER (WHERE k.kind = 'failed')::int AS failed,
         count(*) FILTER (WHERE k.kind = 'cancelled')::int AS cancelled
    FROM (
      SELECT x.occurred_at::date AS day, x.currency, x.payment_method, x.type AS kind, x.amount
        FROM (${MOVEMENTS_WITH_ORDERS}) x
      UNION ALL
      SELECT e.ended_at::date, e.currency, e.payment_method, e.kind, NULL
        FROM (${ENDED_ORDERS}) e
    ) k
   GROUP BY k.day, k.currency, k.payment_method
   ORDER BY k.day, k.currency, k.payment_method NULLS FIRST`;

/** The report's columns for a file: the payment method is the gateway's text, made inert. */
const DAILY_CSV = `
  SELECT ${DAILY_REPORT_COLUMNS.map((column) =>
    column === 'payment_method' ? `${inert('r.payment_method')} AS payment_method` : `r.${column}`,
  ).join(', ')}
    FROM (${DAILY}) r`;

/** Finance's daily summary: what the export holds, day by day, plus failures and cancellations. */
@Injectable()
export class DailyReportService {
  constructor(private readonly snapshots: FinanceSnapshots) {}

  async report(query: DailyReportQuery): Promise<DailyReport> {
    const snapshot = await this.snapshots.open(query);
    try {
      const currency = query.currency?.toUpperCase();
      const rows = await snapshot.query<DailyReportRow>(
        `${DAILY} LIMIT ${DAILY_REPORT_ROWS_MAX + 1}`,
        movementParameters(snapshot.bounds, { currency, account: query.account }),
      );
      if (rows.length > DAILY_REPORT_ROWS_MAX) {
        throw CheckoutError.invalid([
          {
            field: 'to',
            reason: `the range holds more than ${DAILY_REPORT_ROWS_MAX} rows (days × currencies × payment methods): ask for a shorter range or one currency, or for daily.csv`,
          },
        ]);
      }
      return {
        from: snapshot.bounds.from.toISOString(),
        to: snapshot.bounds.to.toISOString(),
        tz: snapshot.bounds.tz,
        currency: currency ?? null,
        account: query.account ?? null,
        rows,
      };
    } finally {
      await snapshot.close();
    }
  }

  /** The same report as CSV, written by PostgreSQL from its own snapshot (as the export is). */
  async csv(query: DailyReportQuery): Promise<{ tz: string; body: Readable }> {
    const snapshot = await this.snapshots.open(query);
    const currency = query.currency?.toUpperCase();
    const filters = { currency, account: query.account };
    const body = snapshot.csv(DAILY_CSV, movementParameters(snapshot.bounds, filters), {
      byteOrderMark: false,
    });
    return { tz: snapshot.bounds.tz, body };
  }
}
