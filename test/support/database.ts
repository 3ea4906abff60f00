import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '@app/persistence';
import { currentTestRun, TEST_CONNECT_TIMEOUT_MS } from './test-servers';

/** A data source on this test run's database (already migrated by the global setup). */
export async function openTestDataSource(poolSize = 30): Promise<DataSource> {
  const url = process.env.DATABASE_URL;
  if (!url || !url.includes('test')) throw new Error('DATABASE_URL is not a test database');
  const dataSource = new DataSource(
    buildDataSourceOptions(url, { poolSize, connectTimeoutMs: TEST_CONNECT_TIMEOUT_MS }),
  );
  return dataSource.initialize();
}

/**
 * A migrated database of the suite's own, beside the run's, for a suite that counts everything
 * its worker does: the run's database holds other suites' orders, whose due polls a worker sweeps
 * up. DATABASE_URL points at it until `drop()`.
 */
export async function ownTestDatabase(
  suffix: string,
): Promise<{ url: string; dataSource: DataSource; drop(): Promise<void> }> {
  const run = currentTestRun();
  const name = `${run.databaseName}_${suffix}`;
  const admin = new DataSource({ type: 'postgres', url: run.adminDatabaseUrl });
  await admin.initialize();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = `${run.databaseUrl.slice(0, run.databaseUrl.lastIndexOf('/'))}/${name}`;
  const dataSource = new DataSource(
    buildDataSourceOptions(url, { poolSize: 10, connectTimeoutMs: TEST_CONNECT_TIMEOUT_MS }),
  );
  await dataSource.initialize();
  await dataSource.runMigrations({ transaction: 'each' });
  const previous = process.env.DATABASE_URL;
  process.env.DATABASE_URL = url;
  return {
    url,
    dataSource,
    async drop() {
      process.env.DATABASE_URL = previous;
      await dataSource.destroy().catch(() => undefined);
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.destroy();
    },
  };
}
