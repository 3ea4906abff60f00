import { createPostgresBackend, Job, withBackend } from 'bullmq';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions, runMigrationsWithLock } from '@app/persistence';
import { ALL_MIGRATIONS } from '../../migrations';
import { EmbeddedServer, startEmbeddedPostgres } from '../support/embedded-postgres';
import { bootApi, readiness, RunningApi } from './boot-api';
import { freePort } from '../support/test-servers';

/**
 * The no-servers mode `npm start` and the test harness fall back to: PostgreSQL from the
 * embedded-postgres package, and BullMQ on its PostgreSQL backend instead of Redis.
 */
describe('embedded mode: embedded PostgreSQL and BullMQ on PostgreSQL', () => {
  let server: EmbeddedServer;
  let databaseUrl: string;

  beforeAll(async () => {
    server = await startEmbeddedPostgres(await freePort());
    const admin = new Client({ connectionString: `${server.url}/postgres` });
    await admin.connect();
    await admin.query('CREATE DATABASE pesapal_embedded_test');
    await admin.end();
    databaseUrl = `${server.url}/pesapal_embedded_test`;
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  }, 60_000);

  it('runs every migration on embedded PostgreSQL', async () => {
    const dataSource = new DataSource(buildDataSourceOptions(databaseUrl));
    await dataSource.initialize();
    try {
      const applied = await runMigrationsWithLock(dataSource);
      expect(applied).toHaveLength(ALL_MIGRATIONS.length);
      expect(await dataSource.showMigrations()).toBe(false);
    } finally {
      await dataSource.destroy();
    }
  });

  it('processes a job through a BullMQ queue and worker on the PostgreSQL backend', async () => {
    const { Queue, Worker } = withBackend(createPostgresBackend);
    const connection = { connectionString: databaseUrl, migrate: true };
    const queue = new Queue<{ orderReference: string }>('embedded-probe', { connection });
    const processed = new Promise<Job>((resolve, reject) => {
      const worker = new Worker<{ orderReference: string }, string>(
        'embedded-probe',
        async (job) => `seen ${job.data.orderReference}`,
        { connection },
      );
      worker.on('completed', (job) => void worker.close().then(() => resolve(job)));
      worker.on('failed', (_job, error) => reject(error));
    });
    try {
      await queue.add('probe', { orderReference: 'ORDER-42' });
      const job = await processed;
      expect(job.data).toEqual({ orderReference: 'ORDER-42' });
      expect(job.returnvalue).toBe('seen ORDER-42');
    } finally {
      await queue.close();
    }
    // The jobs live in Postgres: BullMQ created its own schema in this database.
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    const schemas = await client.query(
      "SELECT schema_name FROM information_schema.schemata WHERE schema_name = 'bullmq'",
    );
    await client.end();
    expect(schemas.rowCount).toBe(1);
  }, 60_000);

  describe('the api with QUEUE_BACKEND=postgres', () => {
    let api: RunningApi;

    beforeAll(async () => {
      // Booting with no database would end the process; fail this suite plainly instead.
      if (!databaseUrl) throw new Error('embedded PostgreSQL did not start');
      api = await bootApi({
        DATABASE_URL: databaseUrl,
        QUEUE_BACKEND: 'postgres',
        // Nothing listens here: with the PostgreSQL backend the api must not need Redis at all.
        REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      });
    });

    afterAll(async () => {
      await api?.close();
    });

    it('is ready with no Redis', async () => {
      const answer = await readiness(api.baseUrl);
      expect(answer.status).toBe(200);
      expect(answer.body.info?.postgres?.status).toBe('up');
    });
  });
});
