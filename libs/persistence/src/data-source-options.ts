import { DataSourceOptions } from 'typeorm';
import { ALL_MIGRATIONS } from '../../../migrations';
import { ENTITIES } from './entities';

/** One place that turns a DATABASE_URL into TypeORM options, for the apps, the CLI and the tests. */
export function buildDataSourceOptions(databaseUrl: string): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    entities: ENTITIES,
    migrations: ALL_MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    migrationsTransactionMode: 'each',
    uuidExtension: 'pgcrypto',
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: { max: 20, connectionTimeoutMillis: 5000 },
  };
}
