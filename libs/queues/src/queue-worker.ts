import { Logger } from '@nestjs/common';
import { DelayedError, Job, Worker, WorkerOptions } from 'bullmq';
import { ServiceConfig } from '@app/config';
import { JobData, JobName, queueConnectionFor, QueueName } from '@app/queues';

/** A processor may ask for its job to run again later without counting as a failed attempt. */
export interface RunLater {
  runLaterMs: number;
}

export type JobHandler<N extends JobName> = (
  data: JobData[N],
  job: Job<JobData[N]>,
) => Promise<RunLater | void>;

export interface WorkerSettings {
  concurrency: number;
  /** Jobs started per second on this queue, across every worker process. */
  perSecond?: number;
  /** Called once a job has used its last attempt (it now sits in the failed set). */
  onExhausted?: (job: Job, error: Error) => Promise<void>;
}

/**
 * Builds one BullMQ worker from the service config: connection, prefix, lock duration (how soon
 * a job held by a dead worker is taken again) and an optional rate limit shared by all processes.
 * Handlers are keyed by job name; an unknown name fails the job rather than dropping it.
 */
export function startQueueWorker(
  config: ServiceConfig,
  queue: QueueName,
  handlers: Partial<{ [N in JobName]: JobHandler<N> }>,
  settings: WorkerSettings,
): Worker {
  const logger = new Logger(`Worker:${queue}`);
  const options: WorkerOptions = {
    connection: queueConnectionFor(config),
    prefix: config.queuePrefix,
    concurrency: settings.concurrency,
    lockDuration: config.jobLockMs,
    stalledInterval: Math.min(config.jobLockMs, 30_000),
    ...(settings.perSecond ? { limiter: { max: settings.perSecond, duration: 1000 } } : {}),
  };
  const worker = new Worker(
    queue,
    async (job: Job, token?: string) => {
      const handler = handlers[job.name as JobName] as JobHandler<JobName> | undefined;
      if (!handler) throw new Error(`no handler for job ${job.name} on ${queue}`);
      const outcome = await handler(job.data as JobData[JobName], job);
      if (outcome && outcome.runLaterMs > 0) {
        await job.moveToDelayed(Date.now() + outcome.runLaterMs, token);
        throw new DelayedError();
      }
    },
    options,
  );
  let lastError = '';
  worker.on('error', (error: Error) => {
    if (error.message !== lastError) logger.warn(`worker: ${error.message}`);
    lastError = error.message;
  });
  worker.on('failed', (job: Job | undefined, error: Error) => {
    if (!job) return;
    const exhausted = job.attemptsMade >= (job.opts.attempts ?? 1);
    logger.warn(
      { jobId: job.id, name: job.name, attemptsMade: job.attemptsMade, exhausted },
      `job failed: ${error.message}`,
    );
    if (exhausted && settings.onExhausted) {
      void settings.onExhausted(job, error).catch((cause: Error) => logger.warn(cause.message));
    }
  });
  return worker;
}
