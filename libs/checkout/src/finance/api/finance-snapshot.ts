import { DataSource, QueryRunner } from 'typeorm';
import { CheckoutError } from '../../errors/checkout-error';
import { MAX_RANGE_DAYS } from '../payment-columns';
import { RangeText } from './report-range';

/** The bounds PostgreSQL worked out in the report's zone: [from, to). */
export interface ReportBounds {
  from: Date;
  to: Date;
  tz: string;
}

const DAY_MS = 86_400_000;
/** A daylight-saving day is 25 hours long: a year of whole local days may exceed 366 × 24 h. */
const LONGEST_RANGE_MS = MAX_RANGE_DAYS * DAY_MS + 2 * 3_600_000;

/**
 * One consistent read for finance: a read-only REPEATABLE READ transaction on a connection of its
 * own, its session TimeZone set to the report's zone (so `::date` is the local day and `to_char`
 * prints the local offset). Every row of an export comes from the snapshot taken at its first
 * statement: orders and refunds that arrive while it streams are neither repeated nor missed.
 */
export class FinanceSnapshot {
  private cursors = 0;

  private constructor(
    private readonly runner: QueryRunner,
    readonly bounds: ReportBounds,
  ) {}

  /** Opens the snapshot and works out the range; a bad zone or range is a 400 naming its field. */
  static async open(dataSource: DataSource, range: RangeText): Promise<FinanceSnapshot> {
    const runner = dataSource.createQueryRunner();
    try {
      await runner.connect();
      await runner.startTransaction('REPEATABLE READ');
      await runner.query('SET TRANSACTION READ ONLY');
      await runner.query(`SELECT set_config('TimeZone', $1, true)`, [range.tz]);
      const [row] = (await runner.query(
        `SELECT $1::timestamptz AS "from", $2::timestamptz AS "to"`,
        [range.from, range.to],
      )) as { from: Date; to: Date }[];
      const bounds = { from: new Date(row.from), to: new Date(row.to), tz: range.tz };
      if (bounds.from.getTime() > bounds.to.getTime()) {
        throw CheckoutError.invalid([{ field: 'from', reason: 'must not be after to' }]);
      }
      if (bounds.to.getTime() - bounds.from.getTime() > LONGEST_RANGE_MS) {
        throw CheckoutError.invalid([
          { field: 'to', reason: `the range must cover at most ${MAX_RANGE_DAYS} days` },
        ]);
      }
      return new FinanceSnapshot(runner, bounds);
    } catch (error) {
      await FinanceSnapshot.end(runner);
      // PostgreSQL's time zone database may lack a name Intl knows: invalid_parameter_value.
      if ((error as { code?: string }).code === '22023') {
        throw CheckoutError.invalid([
          { field: 'tz', reason: 'is not a time zone the database knows' },
        ]);
      }
      throw error;
    }
  }

  query<T>(sql: string, parameters: unknown[]): Promise<T[]> {
    return this.runner.query(sql, parameters) as Promise<T[]>;
  }

  /**
   * The rows of `sql`, `batch` at a time, through a server-side cursor: memory holds one batch
   * whatever the range. The caller pulls; a consumer that stops early (a client gone) ends here.
   */
  async *batches<T>(sql: string, parameters: unknown[], batch: number): AsyncGenerator<T[]> {
    const cursor = `finance_${(this.cursors += 1)}`;
    await this.runner.query(`DECLARE ${cursor} NO SCROLL CURSOR FOR ${sql}`, parameters);
    for (;;) {
      const rows = (await this.runner.query(`FETCH ${batch} FROM ${cursor}`)) as T[];
      if (rows.length > 0) yield rows;
      if (rows.length < batch) return;
    }
  }

  /** Ends the transaction (nothing was written) and gives the connection back. */
  close(): Promise<void> {
    return FinanceSnapshot.end(this.runner);
  }

  private static async end(runner: QueryRunner): Promise<void> {
    try {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
    } catch {
      // A broken connection has no transaction left to end; releasing it is what matters.
    } finally {
      await runner.release();
    }
  }
}
