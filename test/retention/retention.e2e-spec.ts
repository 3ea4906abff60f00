import request from 'supertest';
import { waitFor } from '../support/service';
import { workerSuiteForTests } from '../support/worker-suite';

/**
 * Retention in the worker, on a database of its own (it counts every row): what is past its
 * retention goes, in batches; what is open, undelivered or the merchant's record stays.
 */
describe('retention of operational records (worker + Postgres)', () => {
  // Batches of 10 rows, so that the seeded rows take several and the pass must loop.
  const the = workerSuiteForTests({
    ownDatabase: 'retention',
    env: { RETENTION_BATCH_SIZE: '10' },
  });

  const ids = async (sql: string): Promise<string[]> =>
    ((await the.dataSource.query(sql)) as { id: string }[]).map((row) => row.id).sort();

  const runPass = () => the.runJob('prune-operational-records', {});

  it('is scheduled every ten minutes', async () => {
    const scheduler = await waitFor('the retention scheduler', () =>
      the.queue.getJobScheduler('operational-records-retention'),
    );
    expect(scheduler).toMatchObject({ name: 'prune-operational-records', pattern: '*/10 * * * *' });
  });

  it('runs through the worker: a pass removes settled notifications and counts them', async () => {
    const order = await the.seed.settledOrder({ ageDays: 400, withRefund: true });
    for (let i = 0; i < 25; i += 1) await the.seed.notification('applied', 40);
    const open = (await the.seed.notification('received', 90)).id;
    const record = async () =>
      (await ids('SELECT id FROM order_events')).concat(await ids('SELECT id FROM refunds'));
    const before = await record();

    const removed = await runPass();
    expect(removed.notifications).toBe(25);
    expect(await ids('SELECT id FROM ipn_notifications')).toEqual([open]);
    expect(await ids('SELECT id FROM orders')).toEqual([order.id]);
    expect(await record()).toEqual(before);
    const metrics = await request(the.service.workerApp!.getHttpServer()).get('/metrics');
    expect(metrics.text).toMatch(/retention_removed_rows_total\{kind="notifications"\} 25\b/);
  });

  it('removes console sessions a day past their end, and keeps the others', async () => {
    const session = (subject: string, expiresHoursAgo: number) =>
      the.dataSource.query(
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
    const left = (await the.dataSource.query(
      `SELECT subject FROM operator_sessions ORDER BY subject`,
    )) as { subject: string }[];
    expect(left.map((row) => row.subject)).toEqual(['ended-an-hour-ago', 'still-signed-in']);
  });
});
