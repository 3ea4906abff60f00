import { DataSource, Migration } from 'typeorm';

/** Any fixed 64-bit key: all replicas of this service contend for the same one. */
const MIGRATION_LOCK_KEY = 727_372_001;

/** How often a replica that finds the lock taken asks again. */
const RETRY_MS = 200;

/**
 * Runs pending migrations while holding a Postgres advisory lock, so that two replicas starting
 * together apply each migration once; the second waits, then finds nothing pending. It waits by
 * asking again rather than blocking in pg_advisory_lock: a statement blocked there holds a
 * snapshot, and CREATE INDEX CONCURRENTLY in the first replica's migration would wait for that
 * snapshot while the second waits for its lock.
 */
export async function runMigrationsWithLock(dataSource: DataSource): Promise<Migration[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    for (;;) {
      const [row] = (await runner.query('SELECT pg_try_advisory_lock($1) AS locked', [
        MIGRATION_LOCK_KEY,
      ])) as { locked: boolean }[];
      if (row?.locked) break;
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
    return await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await runner
      .query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY])
      .catch(() => undefined);
    await runner.release();
  }
}
