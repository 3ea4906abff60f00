import { DataSourceOptions } from 'typeorm';
import { ALL_MIGRATIONS } from '../../../migrations';
import { ENTITIES } from './entities';

/** One place that turns a DATABASE_URL into TypeORM options, for the apps, the CLI and the tests. */
export function buildDataSourceOptions(databaseUrl: string, poolSize = 20): DataSourceOptions {
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
    extra: {
      max: poolSize,
      connectionTimeoutMillis: 5000,
      // Named statements (runPrepared) are parsed once per connection but planned for their
      // values each time: a generic plan made while a table was nearly empty (a new deployment)
      // would keep scanning it whole as it grows, until the next ANALYZE.
      options: '-c plan_cache_mode=force_custom_plan',
    },
  };
}
