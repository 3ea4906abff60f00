import { DataSource } from 'typeorm';
import { NAMED_STATEMENTS } from './data-source-options';

/**
 * A statement run often enough that parsing it each time shows. Whether its plan is made per
 * execution depends on the app's connections (NamedStatementPlans in data-source-options).
 */
export interface PreparedStatement {
  /** Unique per text: pg parses it under this name once per pooled connection. */
  readonly name: string;
  readonly text: string;
}

interface DriverPool {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * The driver's own pool, for hot autocommit statements that need nothing of the ORM (never
 * inside a transaction: it may take any connection).
 */
export function driverPool(dataSource: DataSource): DriverPool {
  return (dataSource.driver as unknown as { master: DriverPool }).master;
}

/**
 * Rows of values turned into one array per column: the parameters of a statement that takes any
 * number of rows as `unnest($1::type[], $2::type[], ...)`, parsed once whatever the batch size.
 */
export function asColumns(rows: readonly (readonly unknown[])[]): unknown[][] {
  const columns: unknown[][] = (rows[0] ?? []).map(() => []);
  for (const row of rows) row.forEach((value, column) => columns[column].push(value));
  return columns;
}

/** Runs a prepared statement outside any transaction; answers its rows. */
export async function runPrepared<Row>(
  dataSource: DataSource,
  statement: PreparedStatement,
  values: unknown[],
): Promise<Row[]> {
  const named = (dataSource.options.extra as Record<string, unknown> | undefined)?.[
    NAMED_STATEMENTS
  ];
  const result = await driverPool(dataSource).query({
    // Behind a pooler that cannot keep prepared statements, the same text goes unnamed.
    ...(named === false ? {} : { name: statement.name }),
    text: statement.text,
    values,
  });
  return result.rows as Row[];
}

/**
 * A condition for the WHERE of an autocommit UPDATE whose change a database crash may lose
 * without harm, because it is made again (the inbox relay's claims, a verification's cover of
 * the notifications it answered): its commit does not wait for the WAL to reach disk
 * (PostgreSQL's asynchronous commit, for this transaction only). Such a change is visible at
 * once and after a crash is either whole or missing. Every row the statement changes passed the
 * condition, so the setting is in force when it commits. Statements whose loss would be seen
 * (an order's outcome and its merchant event, a stored notification) never use it: those commits
 * are what the worker's and the api's flush waits are for.
 */
export const COMMIT_WITHOUT_FLUSH_WAIT = `set_config('synchronous_commit', 'off', true) IS NOT NULL`;
