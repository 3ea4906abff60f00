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
