import { Job, Queue } from 'bullmq';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { loadServiceConfig } from '@app/config';
import { jobOptions, queueConnectionFor, QUEUES } from '@app/queues';
import { ownTestDatabase } from '../support/database';
import { SeedRows } from '../support/seed-rows';
import { RunningService, startService, waitFor } from '../support/service';

/**
 * Retention in the worker, on a database of its own (it counts every row): what is past its
 * retention goes, in batches; what is open, undelivered or the merchant's record stays.
 */
describe('retention of operational records (worker + Postgres)', () => {
  let database: Awaited<ReturnType<typeof ownTestDatabase>>;
  let dataSource: DataSource;
  let service: RunningService;
  let queue: Queue;
  let seed: SeedRows;

  beforeAll(async () => {
    database = await ownTestDatabase('retention');
    dataSource = database.dataSource;
    seed = new SeedRows(dataSource);
    // Batches of 10 rows, so that the seeded rows take several and the pass must loop.
    service = await startService({ worker: true, env: { RETENTION_BATCH_SIZE: '10' } });
    queue = new Queue(QUEUES.reconciliation, {
      connection: queueConnectionFor(loadServiceConfig()),
      prefix: process.env.QUEUE_PREFIX,
    });
  }, 60_000);
  afterAll(async () => {
    await queue?.close();
    await service?.close();
    await database?.drop();
  });

  const ids = async (sql: string): Promise<string[]> =>
    ((await dataSource.query(sql)) as { id: string }[]).map((row) => row.id).sort();

  async function runPass(): Promise<Record<string, number>> {
    const job: Job = await queue.add(
      'prune-operational-records',
      {},
      jobOptions('prune-operational-records', {}),
    );
    return waitFor('the retention pass', async () => {
      const state = await job.getState();
      if (state === 'failed')
        throw new Error(`the pass failed: ${(await queue.getJob(job.id!))?.failedReason}`);
      return state === 'completed' ? ((await queue.getJob(job.id!))?.returnvalue ?? null) : null;
    });
  }

  it('is scheduled every ten minutes', async () => {
    const scheduler = await waitFor('the retention scheduler', () =>
      queue.getJobScheduler('operational-records-retention'),
    );
    expect(scheduler).toMatchObject({ name: 'prune-operational-records', pattern: '*/10 * * * *' });
  });

  it('runs through the worker: a pass removes settled notifications and counts them', async () => {
    const order = await seed.settledOrder({ ageDays: 400, withRefund: true });
    for (let i = 0; i < 25; i += 1) await seed.notification('applied', 40);
    const open = (await seed.notification('received', 90)).id;
    const record = async () =>
      (await ids('SELECT id FROM order_events')).concat(await ids('SELECT id FROM refunds'));
    const before = await record();

    const removed = await runPass();
    expect(removed.notifications).toBe(25);
    expect(await ids('SELECT id FROM ipn_notifications')).toEqual([open]);
    expect(await ids('SELECT id FROM orders')).toEqual([order.id]);
    expect(await record()).toEqual(before);
    const metrics = await request(service.workerApp!.getHttpServer()).get('/metrics');
    expect(metrics.text).toMatch(/retention_removed_rows_total\{kind="notifications"\} 25\b/);
  });

  it('removes console sessions a day past their end, and keeps the others', async () => {
    const session = (subject: string, expiresHoursAgo: number) =>
      dataSource.query(
        `INSERT INTO operator_sessions (token_hash, subject, roles, created_at, last_seen_at, expires_at)
         VALUES (md5(random()::text) || md5(random()::text), $1, '{viewer}', now() - interval '3 days',
                 now() - interval '3 days', now() - make_interval(hours => $2))`,
        [subject, expiresHoursAgo],
      );
    await session('ended-long-ago', 30);
    await session('ended-an-hour-ago', 1);
    await session('still-signed-in', -5);
    const removed = await runPass();
    expect(removed.operator_sessions).toBe(1);
    const left = (await dataSource.query(
      `SELECT subject FROM operator_sessions ORDER BY subject`,
    )) as { subject: string }[];
    expect(left.map((row) => row.subject)).toEqual(['ended-an-hour-ago', 'still-signed-in']);
  });
});
