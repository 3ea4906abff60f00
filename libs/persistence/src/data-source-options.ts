import { DataSourceOptions } from 'typeorm';
import { ALL_MIGRATIONS } from '../../../migrations';
import { ENTITIES } from './entities';

/**
 * How named statements (runPrepared) are planned on these connections. 'per-execution': for
 * their values each time, because a generic plan made while a table was nearly empty (a new
 * deployment) would keep scanning it whole as it grows, until the next ANALYZE; the worker's
 * reads and covers need that. 'reusable': PostgreSQL's default, a generic plan once it costs no
 * more; the api's named statements have no plan to get wrong (the inbox INSERT, and an order's
 * outcome, written by primary key, when a return redirect looks it up), and planning the INSERT
 * was a fifth of the database's work per acknowledgement.
 */
export type NamedStatementPlans = 'per-execution' | 'reusable';

/** The pool option runPrepared reads to know whether it may name its statements. */
export const NAMED_STATEMENTS = 'pesapalNamedStatements';

/** How long a new connection may take before the call fails as "database unavailable". */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5000;

/** How a process's pool connects; each has a default. */
export interface PoolSettings {
  poolSize?: number;
  plans?: NamedStatementPlans;
  /** False sends statements unnamed (a pooler that loses them). */
  namedStatements?: boolean;
  connectTimeoutMs?: number;
}

/** One place that turns a DATABASE_URL into TypeORM options, for the apps, the CLI and the tests. */
export function buildDataSourceOptions(
  databaseUrl: string,
  {
    poolSize = 20,
    plans = 'per-execution',
    namedStatements = true,
    connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS,
  }: PoolSettings = {},
): DataSourceOptions {
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
      connectionTimeoutMillis: connectTimeoutMs,
      options: `-c plan_cache_mode=${plans === 'per-execution' ? 'force_custom_plan' : 'auto'}`,
      // Read by runPrepared (pg ignores it): false sends its statements unnamed.
      [NAMED_STATEMENTS]: namedStatements,
    },
  };
}
