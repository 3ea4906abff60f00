import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { counter } from '@app/common';
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
 * What PostgreSQL answers when a pooler in transaction mode hands a named statement to a server
 * connection that never parsed it (26000: "prepared statement ... does not exist") or to one that
 * already did for another client (42P05: "... already exists"). Either way nothing ran.
 */
const LOST_STATEMENT_CODES = new Set(['26000', '42P05']);

/** Data sources that met such a pooler: they send their statements unnamed from then on. */
const unnamedFrom = new WeakSet<DataSource>();

const namedStatementsDropped = counter({
  name: 'database_named_statements_dropped_total',
  help: 'Times a process found that its connection pooler loses named prepared statements (PgBouncer in transaction mode before 1.21, or without max_prepared_statements) and went on sending them unnamed.',
});
namedStatementsDropped.inc(0);

const logger = new Logger('PreparedStatements');

function namesStatements(dataSource: DataSource): boolean {
  const option = (dataSource.options.extra as Record<string, unknown> | undefined)?.[
    NAMED_STATEMENTS
  ];
  return option !== false && !unnamedFrom.has(dataSource);
}

/**
 * Runs a prepared statement outside any transaction; answers its rows. Behind a pooler that
 * cannot keep prepared statements (DATABASE_PREPARED_STATEMENTS=false, or found out here the first
 * time one is lost) the same text goes unnamed: the failed attempt ran nothing, so it is sent
 * again unnamed and the caller never sees the pooler's error.
 */
export async function runPrepared<Row>(
  dataSource: DataSource,
  statement: PreparedStatement,
  values: unknown[],
): Promise<Row[]> {
  const pool = driverPool(dataSource);
  if (!namesStatements(dataSource)) {
    return (await pool.query({ text: statement.text, values })).rows as Row[];
  }
  try {
    return (await pool.query({ name: statement.name, text: statement.text, values })).rows as Row[];
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== 'string' || !LOST_STATEMENT_CODES.has(code)) throw error;
    if (!unnamedFrom.has(dataSource)) {
      unnamedFrom.add(dataSource);
      namedStatementsDropped.inc();
      logger.warn(
        `the connection pooler lost the named statement "${statement.name}" (${code}): statements are sent unnamed from now on; set DATABASE_PREPARED_STATEMENTS=false for this pooler, or give it max_prepared_statements (PgBouncer 1.21+)`,
      );
    }
    return (await pool.query({ text: statement.text, values })).rows as Row[];
  }
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
