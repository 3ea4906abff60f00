import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadOrExit, loadServiceConfig } from '@app/config';
import { buildDataSourceOptions, runMigrationsWithLock } from '@app/persistence';

/**
 * Applies pending migrations and exits: the Kubernetes migrations Job (deploy/kubernetes), run
 * before the apps, which then start with RUN_MIGRATIONS=false. Holds the same advisory lock as an
 * app migrating on start, so a stray concurrent run waits and then finds nothing to do.
 */
async function migrate(): Promise<void> {
  const config = loadOrExit(() => loadServiceConfig());
  // Two connections: one holds the advisory lock while the other migrates.
  const dataSource = new DataSource(
    buildDataSourceOptions(config.databaseDirectUrl, { poolSize: 2 }),
  );
  await dataSource.initialize();
  try {
    const applied = await runMigrationsWithLock(dataSource);
    const names = applied.map((migration) => migration.name);
    process.stdout.write(
      `${JSON.stringify({ level: 30, name: 'migrate', msg: names.length > 0 ? `applied ${names.join(', ')}` : 'nothing to apply', applied: names })}\n`,
    );
  } finally {
    await dataSource.destroy();
  }
}

migrate().catch((error: unknown) => {
  process.stderr.write(
    `${JSON.stringify({ level: 50, name: 'migrate', msg: `migrations failed: ${error instanceof Error ? error.message : String(error)}` })}\n`,
  );
  process.exit(1);
});
