import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '@app/persistence';

/** A data source on this test run's database (already migrated by the global setup). */
export async function openTestDataSource(poolSize = 30): Promise<DataSource> {
  const url = process.env.DATABASE_URL;
  if (!url || !url.includes('test')) throw new Error('DATABASE_URL is not a test database');
  const dataSource = new DataSource(buildDataSourceOptions(url, poolSize));
  return dataSource.initialize();
}
