import { Client } from 'pg';
import { DataSource, DataSourceOptions } from 'typeorm';
import type { Query } from 'typeorm/driver/Query';
import { buildDataSourceOptions } from '@app/persistence';

/**
 * Schema helpers shared by the migrations CLI and the foundation tests, so the drift check CI runs
 * is the same code the tests prove.
 */

export interface PendingSchemaChange {
  up: Query[];
  down: Query[];
}

/** What TypeORM would still have to do to make the database match the entities. */
export async function pendingSchemaChange(dataSource: DataSource): Promise<PendingSchemaChange> {
  const log = await dataSource.driver.createSchemaBuilder().log();
  return { up: log.upQueries, down: log.downQueries };
}

/**
 * Reverts the last applied migration, outside a transaction when that migration says so (its
 * CONCURRENTLY statements cannot run in one); TypeORM's undo would otherwise open one regardless.
 */
export async function revertLastMigration(dataSource: DataSource): Promise<void> {
  const table = dataSource.options.migrationsTableName ?? 'migrations';
  const [last] = (await dataSource.query(
    `SELECT name FROM "${table}" ORDER BY timestamp DESC, id DESC LIMIT 1`,
  )) as { name: string }[];
  const instance = dataSource.migrations.find((migration) => migration.name === last?.name);
  const outside = (instance as { transaction?: boolean } | undefined)?.transaction === false;
  await dataSource.undoLastMigration({ transaction: outside ? 'none' : 'each' });
}

/** Reverts applied migrations one by one until none is left; returns how many were reverted. */
export async function revertAllMigrations(dataSource: DataSource): Promise<number> {
  let reverted = 0;
  for (;;) {
    const applied = await appliedMigrationCount(dataSource);
    if (applied === 0) return reverted;
    await revertLastMigration(dataSource);
    if ((await appliedMigrationCount(dataSource)) !== applied - 1) {
      throw new Error(`reverting a migration left ${applied} applied`);
    }
    reverted += 1;
  }
}

async function appliedMigrationCount(dataSource: DataSource): Promise<number> {
  const table = dataSource.options.migrationsTableName ?? 'migrations';
  const exists = (await dataSource.query('SELECT to_regclass($1) AS t', [table])) as {
    t: string | null;
  }[];
  if (!exists[0]?.t) return 0;
  const rows = (await dataSource.query(`SELECT count(*)::int AS n FROM "${table}"`)) as {
    n: number;
  }[];
  return rows[0]?.n ?? 0;
}

/** The URL of the same server's maintenance database, and of a named database on it. */
export function serverUrls(
  databaseUrl: string,
  databaseName: string,
): { admin: string; db: string } {
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const db = new URL(databaseUrl);
  db.pathname = `/${databaseName}`;
  return { admin: admin.toString(), db: db.toString() };
}

/**
 * Runs `use` on a brand-new database on the server of `databaseUrl`, dropping it afterwards.
 * The name always contains "test": scratch databases must never be mistaken for real ones.
 */
export async function withScratchDatabase<T>(
  databaseUrl: string,
  label: string,
  use: (scratchUrl: string) => Promise<T>,
): Promise<T> {
  const name = `pesapal_${label}_test_${Date.now().toString(36)}_${process.pid}`;
  const urls = serverUrls(databaseUrl, name);
  await adminQuery(urls.admin, `CREATE DATABASE "${name}"`);
  try {
    return await use(urls.db);
  } finally {
    await adminQuery(urls.admin, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Runs every migration on an empty database and reports what the entities still differ by.
 * `optionsFor` exists so a test can prove the check notices an entity no migration created.
 */
export async function findSchemaDrift(
  databaseUrl: string,
  optionsFor: (url: string) => DataSourceOptions = buildDataSourceOptions,
): Promise<PendingSchemaChange> {
  return withScratchDatabase(databaseUrl, 'drift', async (scratchUrl) => {
    const dataSource = new DataSource(optionsFor(scratchUrl));
    await dataSource.initialize();
    try {
      await dataSource.runMigrations({ transaction: 'each' });
      return await pendingSchemaChange(dataSource);
    } finally {
      await dataSource.destroy();
    }
  });
}
