/**
 * A suite of the worker's housekeeping (the overview's totals, retention, the nightly
 * reconciliation): the api and the worker, a data source, and the housekeeping queue, to see its
 * schedulers and to run one of its jobs now rather than when the schedule says.
 *
 *   const suite = await startWorkerSuite({ ownDatabase: 'retention' });
 *   const removed = await suite.runJob('prune-operational-records', {}); // { notifications: 25, ... }
 *   await suite.close();
 */
import { Job, Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { loadServiceConfig } from '@app/config';
import { JobData, JobName, jobOptions, queueConnectionFor, QUEUES } from '@app/queues';
import { openTestDataSource, ownTestDatabase } from './database';
import { SeedRows } from './seed-rows';
import { RunningService, startService, waitFor } from './service';

export interface WorkerSuiteOptions {
  /**
   * A database of the suite's own, named by this suffix, for a suite that counts every row; its
   * worker then has queues of its own too, so that no other suite's worker takes its jobs.
   * Without it: the run's database and queues.
   */
  ownDatabase?: string;
  /** Passed to startService (applied after the suite's own). */
  env?: Record<string, string>;
}

export interface WorkerSuite {
  service: RunningService;
  dataSource: DataSource;
  /** The housekeeping queue (QUEUES.reconciliation) of this suite's worker. */
  queue: Queue;
  /** Adds the job and waits until the worker has run it: its return value, or its failure thrown. */
  runJob<R = Record<string, number>, N extends JobName = JobName>(
    name: N,
    data: JobData[N],
  ): Promise<R>;
  close(): Promise<void>;
}

export async function startWorkerSuite(options: WorkerSuiteOptions = {}): Promise<WorkerSuite> {
  const runPrefix = String(process.env.QUEUE_PREFIX);
  const own = options.ownDatabase ? await ownTestDatabase(options.ownDatabase) : undefined;
  const prefix = own ? `${runPrefix}-${options.ownDatabase}` : runPrefix;
  const dataSource = own?.dataSource ?? (await openTestDataSource());
  const release = async () => {
    // Later suites of this jest worker share process.env, where startService left the prefix.
    process.env.QUEUE_PREFIX = runPrefix;
    await (own ? own.drop() : dataSource.destroy());
  };
  let service: RunningService;
  try {
    service = await startService({ worker: true, env: { QUEUE_PREFIX: prefix, ...options.env } });
  } catch (error) {
    await release();
    throw error;
  }
  const queue = new Queue(QUEUES.reconciliation, {
    connection: queueConnectionFor(loadServiceConfig()),
    prefix,
  });
  return {
    service,
    dataSource,
    queue,
    async runJob(name, data) {
      const job: Job = await queue.add(name, data, jobOptions(name, data));
      return waitFor(`the job ${name}`, async () => {
        const state = await job.getState();
        if (state === 'failed')
          throw new Error(`${name} failed: ${(await queue.getJob(job.id!))?.failedReason}`);
        return state === 'completed' ? ((await queue.getJob(job.id!))?.returnvalue ?? null) : null;
      });
    },
    async close() {
      await queue.close();
      await service.close();
      await release();
    },
  };
}

/** A worker suite as a describe's tests read it: with rows seeded straight into its database. */
export interface SeededWorkerSuite extends WorkerSuite {
  seed: SeedRows;
}

/**
 * Registers the describe's beforeAll (startWorkerSuite) and afterAll (close); the fields are set
 * by the time its tests run.
 */
export function workerSuiteForTests(options: WorkerSuiteOptions = {}): SeededWorkerSuite {
  const the = {} as SeededWorkerSuite;
  let started: WorkerSuite | undefined;
  beforeAll(async () => {
    started = await startWorkerSuite(options);
    Object.assign(the, started, { seed: new SeedRows(started.dataSource) });
  }, 60_000);
  afterAll(() => started?.close());
  return the;
}
