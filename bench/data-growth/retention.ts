/** Step 3: retention through the worker's job, with the default settings. */
import { performance } from 'node:perf_hooks';
import { Queue } from 'bullmq';
import { loadServiceConfig } from '@app/config';
import { jobOptions, queueConnectionFor, queueKeyPrefix, QUEUES } from '@app/queues';
import { waitUntil } from '../processes';
import { RETENTION_MINUTES, round } from './settings';

/** Retention passes through the worker's job until one removes nothing (or time is up). */
export async function pruneAll(env: Record<string, string>) {
  const config = loadServiceConfig(env);
  const queue = new Queue(QUEUES.reconciliation, {
    connection: queueConnectionFor(config),
    prefix: queueKeyPrefix(config, QUEUES.reconciliation),
  });
  const started = performance.now();
  const removed: Record<string, number> = {};
  let passes = 0;
  try {
    while (performance.now() - started < RETENTION_MINUTES * 60_000) {
      const job = await queue.add(
        'prune-operational-records',
        {},
        {
          ...jobOptions('prune-operational-records', {}),
          jobId: `bench-prune-${passes}`,
        },
      );
      let result: Record<string, number> | null = null;
      await waitUntil(
        'a retention pass',
        async () => {
          const state = await job.getState();
          if (state === 'failed') throw new Error('the retention pass failed');
          if (state !== 'completed') return false;
          result = ((await queue.getJob(job.id!))?.returnvalue ?? {}) as Record<string, number>;
          return true;
        },
        30 * 60_000,
        500,
      );
      passes += 1;
      const pass: Record<string, number> = result ?? {};
      for (const [kind, count] of Object.entries(pass))
        removed[kind] = (removed[kind] ?? 0) + count;
      if (Object.values(pass).every((count) => count === 0)) break;
    }
  } finally {
    await queue.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const total = Object.values(removed).reduce((sum, n) => sum + n, 0);
  return { passes, seconds: round(seconds), removed, rows_per_second: Math.round(total / seconds) };
}
