import { QueryRunner } from 'typeorm';

/** An index a migration builds online: `definition` is what follows `ON <table>`. */
export interface OnlineIndex {
  name: string;
  table: string;
  definition: string;
}

/**
 * Builds each index CONCURRENTLY, so that a table holding millions of rows keeps taking writes
 * while it builds (the migration runs with `transaction = false`). An index already valid is left
 * alone; one left invalid by an interrupted build is dropped and built again.
 */
export async function createIndexesOnline(
  queryRunner: QueryRunner,
  indexes: readonly OnlineIndex[],
): Promise<void> {
  for (const index of indexes) {
    const [row] = (await queryRunner.query(
      `SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        WHERE c.relname = $1`,
      [index.name],
    )) as { valid: boolean }[];
    if (row?.valid) continue;
    if (row) await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "${index.name}"`);
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY "${index.name}" ON "${index.table}" ${index.definition}`,
    );
  }
}

/** Drops the indexes CONCURRENTLY, the last built first. */
export async function dropIndexesOnline(
  queryRunner: QueryRunner,
  indexes: readonly OnlineIndex[],
): Promise<void> {
  for (const index of [...indexes].reverse()) {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "${index.name}"`);
  }
}

/**
 * A catalogue-only ALTER (a column with a constant default) still takes the table's ACCESS
 * EXCLUSIVE lock for an instant: waiting behind a long transaction it would block every read
 * and write meanwhile. So it waits at most `lockTimeoutMs`, and is tried again (a few times,
 * a little later) rather than queueing the table's traffic behind it.
 */
export async function alterBriefly(
  queryRunner: QueryRunner,
  sql: string,
  { lockTimeoutMs = 3000, attempts = 10, pauseMs = 2000 } = {},
): Promise<void> {
  await queryRunner.query(`SET lock_timeout = ${lockTimeoutMs}`);
  try {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await queryRunner.query(sql);
        return;
      } catch (error) {
        const failure = error as { driverError?: { code?: string }; code?: string };
        const code = failure.code ?? failure.driverError?.code;
        if (code !== '55P03' || attempt >= attempts) throw error;
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
      }
    }
  } finally {
    await queryRunner.query('RESET lock_timeout');
  }
}
