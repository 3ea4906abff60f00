import { PassThrough, Readable } from 'node:stream';
import type { PoolClient } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { DataSource, QueryRunner } from 'typeorm';
import { CheckoutError } from '../../errors/checkout-error';
import { MAX_RANGE_DAYS } from '../payment-columns';
import { RangeText } from './report-range';

/** The bounds PostgreSQL worked out in the report's zone: [from, to). */
export interface ReportBounds {
  from: Date;
  to: Date;
  /** The same instants to the microsecond, as UTC text (what a statement is given). */
  fromText: string;
  toText: string;
  tz: string;
}

const DAY_MS = 86_400_000;
/** A daylight-saving day is 25 hours long: a year of whole local days may exceed 366 × 24 h. */
const LONGEST_RANGE_MS = MAX_RANGE_DAYS * DAY_MS + 2 * 3_600_000;
const UTC_TEXT = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

/** Excel and LibreOffice read a UTF-8 file as UTF-8 when it starts with this mark. */
export const BYTE_ORDER_MARK = '\uFEFF';

/**
 * One consistent read for finance: a read-only REPEATABLE READ transaction on a connection of its
 * own, its session TimeZone set to the report's zone (so `::date` is the local day and `to_char`
 * prints the local offset). Every row of an export comes from the snapshot taken at its first
 * statement: orders and refunds that arrive while it streams are neither repeated nor missed.
 */
export class FinanceSnapshot {
  private closed: Promise<void> | null = null;
  /**
   * A cancel sent for an abandoned COPY. The connection goes back to the pool only once it has
   * been sent, so that it can never land on another request's statement.
   */
  private cancelling: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly runner: QueryRunner,
    private readonly backendPid: number,
    private readonly dataSource: DataSource,
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
        `SELECT b.f AS "from", b.t AS "to", pg_backend_pid() AS pid,
                to_char(b.f AT TIME ZONE 'UTC', ${UTC_TEXT}) AS "fromText",
                to_char(b.t AT TIME ZONE 'UTC', ${UTC_TEXT}) AS "toText"
           FROM (SELECT $1::timestamptz AS f, $2::timestamptz AS t) b`,
        [range.from, range.to],
      )) as { from: Date; to: Date; pid: number; fromText: string; toText: string }[];
      const bounds: ReportBounds = {
        from: new Date(row.from),
        to: new Date(row.to),
        fromText: row.fromText,
        toText: row.toText,
        tz: range.tz,
      };
      // A `to` day ends where the next begins: a `from` at or after that is after the `to` day.
      const after = range.toIsDay
        ? bounds.from.getTime() >= bounds.to.getTime()
        : bounds.from.getTime() > bounds.to.getTime();
      if (after) {
        throw CheckoutError.invalid([{ field: 'from', reason: 'must not be after to' }]);
      }
      if (bounds.to.getTime() - bounds.from.getTime() > LONGEST_RANGE_MS) {
        throw CheckoutError.invalid([
          { field: 'to', reason: `the range must cover at most ${MAX_RANGE_DAYS} days` },
        ]);
      }
      return new FinanceSnapshot(runner, row.pid, dataSource, bounds);
    } catch (error) {
      await end(runner);
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
   * The rows of `sql` as a CSV file with a header line, written by PostgreSQL itself (COPY … TO
   * STDOUT: its quoting, no row ever held as objects here) and streamed with backpressure, so
   * memory holds a socket's worth whatever the range. COPY takes no bind parameters: `$n` become
   * literals quoted by the driver. The snapshot ends with the stream: read to the end, failed, or
   * abandoned by a client that went away (then the statement is cancelled, not left to run).
   */
  csv(sql: string, parameters: unknown[], options: { byteOrderMark: boolean }): Readable {
    const client = (this.runner as unknown as { databaseConnection: PoolClient })
      .databaseConnection;
    const statement = sql.replace(/\$(\d+)/g, (_match, index: string) =>
      literal(client, parameters[Number(index) - 1]),
    );
    const body = new PassThrough();
    if (options.byteOrderMark) body.write(BYTE_ORDER_MARK);
    const copy = client.query(copyTo(`COPY (${statement}) TO STDOUT WITH (FORMAT csv, HEADER)`));
    let finished = false;
    copy.once('end', () => {
      finished = true;
      void this.close();
    });
    copy.once('error', (error) => {
      finished = true;
      body.destroy(error);
      void this.close();
    });
    body.once('close', () => {
      if (finished) return;
      // The client went away mid-file: stop the statement, then let the copy drain to its end.
      copy.unpipe(body);
      copy.resume();
      this.cancelling = this.dataSource
        .query('SELECT pg_cancel_backend($1)', [this.backendPid])
        .catch(() => undefined);
    });
    copy.pipe(body);
    return body;
  }

  /** Ends the transaction (nothing was written) and gives the connection back; once. */
  close(): Promise<void> {
    return (this.closed ??= this.cancelling.then(() => end(this.runner)));
  }
}

function literal(client: PoolClient, value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  return client.escapeLiteral(value instanceof Date ? value.toISOString() : String(value));
}

async function end(runner: QueryRunner): Promise<void> {
  try {
    if (runner.isTransactionActive) await runner.rollbackTransaction();
  } catch {
    // A broken connection has no transaction left to end; releasing it is what matters.
  } finally {
    await runner.release();
  }
}
