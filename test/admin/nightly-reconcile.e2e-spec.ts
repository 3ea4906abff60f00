import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { loadServiceConfig } from '@app/config';
import { ReconciliationReportEntity } from '@app/persistence';
import { jobOptions, queueConnectionFor, QUEUES } from '@app/queues';
import { openTestDataSource } from '../support/database';
import { RunningService, startService, waitFor } from '../support/service';

describe('nightly reconciliation in the worker', () => {
  let service: RunningService;
  let dataSource: DataSource;
  let queue: Queue;

  beforeAll(async () => {
    service = await startService({ worker: true, env: { RUN_MIGRATIONS: 'true' } });
    dataSource = await openTestDataSource();
    queue = new Queue(QUEUES.reconciliation, {
      connection: queueConnectionFor(loadServiceConfig()),
      prefix: process.env.QUEUE_PREFIX,
    });
  }, 60_000);
  afterAll(async () => {
    await queue?.close();
    await dataSource?.destroy();
    await service?.close();
  });

  it('is scheduled once a night and stores a report when it runs', async () => {
    const scheduler = await waitFor('the nightly scheduler', () =>
      queue.getJobScheduler('nightly-reconcile'),
    );
    expect(scheduler).toMatchObject({ name: 'reconcile', pattern: '30 2 * * *' });

    const data = { sinceHours: 1 };
    await queue.add('reconcile', data, jobOptions('reconcile', data));
    // Found by its window: a run at 02:30 is the scheduler's own (48 hours), not this one.
    const report = await waitFor('a nightly report', () =>
      dataSource
        .getRepository(ReconciliationReportEntity)
        .findOneBy({ trigger: 'nightly', sinceHours: 1 }),
    );
    expect(report).toMatchObject({ sinceHours: 1, requestedBy: null });
  });
});
