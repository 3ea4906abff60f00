import './register-paths';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '@app/persistence';
import { freePort, portAnswers, TEST_RUN_ENV, TestRun } from './test-servers';
import { startEmbeddedPostgres } from './embedded-postgres';
import { provisionSystemPackages } from './system-packages';

/**
 * One database and one queue prefix per test run, on the machine's real servers when they answer,
 * otherwise on embedded PostgreSQL (and BullMQ's PostgreSQL backend instead of Redis).
 */
export default async function globalSetup(): Promise<void> {
  // What the browser and pooler suites need beyond npm, installed here when it can be.
  for (const line of provisionSystemPackages()) process.stdout.write(`${line}\n`);
  const runId = `${Date.now().toString(36)}_${process.pid}`;
  let adminBase = process.env.TEST_POSTGRES_URL;
  let embeddedDir: string | undefined;
  if (!adminBase) {
    if (await portAnswers(5432)) {
      adminBase = 'postgres://postgres@127.0.0.1:5432';
    } else {
      const embedded = await startEmbeddedPostgres(await freePort());
      (globalThis as { __embeddedPostgres?: unknown }).__embeddedPostgres = embedded;
      adminBase = embedded.url;
      embeddedDir = embedded.dir;
    }
  }
  const databaseName = `pesapal_test_${runId}`;
  const admin = new Client({ connectionString: `${adminBase}/postgres` });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${databaseName}"`);
  await admin.end();

  const databaseUrl = `${adminBase}/${databaseName}`;
  const dataSource = new DataSource(buildDataSourceOptions(databaseUrl));
  await dataSource.initialize();
  await dataSource.runMigrations({ transaction: 'each' });
  await dataSource.destroy();

  // TEST_QUEUE_BACKEND=postgres runs the suite as a machine without Redis would, on a real server.
  const redisUp = process.env.TEST_QUEUE_BACKEND !== 'postgres' && (await portAnswers(6379));
  const run: TestRun = {
    runId,
    adminDatabaseUrl: `${adminBase}/postgres`,
    databaseUrl,
    databaseName,
    queueBackend: redisUp ? 'redis' : 'postgres',
    redisUrl: 'redis://127.0.0.1:6379',
    queuePrefix: `test_${runId}`,
    embeddedPostgresDir: embeddedDir,
    auditDir: mkdtempSync(join(tmpdir(), `pesapal-audit-${runId}-`)),
  };
  process.env[TEST_RUN_ENV] = JSON.stringify(run);
  process.stdout.write(
    `\ntest run ${runId}: database ${databaseName} on ${embeddedDir ? 'embedded PostgreSQL' : adminBase.replace(/:[^:@/]*@/, ':***@')}, queues on ${run.queueBackend} (prefix ${run.queuePrefix})\n`,
  );
}
