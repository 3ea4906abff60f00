import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { ReconciliationReportEntity } from '@app/persistence';
import { jobOptions } from '@app/queues';
import { waitFor } from '../support/service';
import { startWorkerSuite, WorkerSuite } from '../support/worker-suite';

describe('nightly reconciliation in the worker', () => {
  let suite: WorkerSuite | undefined;
  let dataSource: DataSource;
  let queue: Queue;

  beforeAll(async () => {
    // A database of its own: the run's holds every earlier suite's orders of the last hour, each
    // one more lookup for this run to make before its report is stored.
    suite = await startWorkerSuite({ ownDatabase: 'nightly', env: { RUN_MIGRATIONS: 'true' } });
    ({ dataSource, queue } = suite);
  }, 60_000);
  afterAll(() => suite?.close());

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
