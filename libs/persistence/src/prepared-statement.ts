import { DataSource } from 'typeorm';

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

/** Runs a prepared statement outside any transaction; answers its rows. */
export async function runPrepared<Row>(
  dataSource: DataSource,
  statement: PreparedStatement,
  values: unknown[],
): Promise<Row[]> {
  const result = await driverPool(dataSource).query({
    name: statement.name,
    text: statement.text,
    values,
  });
  return result.rows as Row[];
}
