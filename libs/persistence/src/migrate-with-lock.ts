import { DataSource, Migration } from 'typeorm';

/** Any fixed 64-bit key: all replicas of this service contend for the same one. */
const MIGRATION_LOCK_KEY = 727_372_001;

/**
 * Runs pending migrations while holding a Postgres advisory lock, so that two replicas starting
 * together apply each migration once; the second waits, then finds nothing pending.
 */
export async function runMigrationsWithLock(dataSource: DataSource): Promise<Migration[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    return await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await runner
      .query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY])
      .catch(() => undefined);
    await runner.release();
  }
}
