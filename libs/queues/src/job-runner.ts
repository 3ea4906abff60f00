import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';
import { DiscoveryService, Reflector } from '@nestjs/core';
import { ConnectionOptions, DelayedError, Job, MinimalJob, Queue, Worker } from 'bullmq';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import {
  JOB_QUEUE,
  JOB_SCHEDULES,
  JobData,
  JobName,
  QUEUE_WORKERS,
  QueueName,
  ScheduleName,
} from './job-catalogue';
import { HELD_STATES, JobProducer } from './job-producer';
import { closeQueueConnection, queueConnectionFor } from './queue-backend';
import { logQueueErrorsOnce } from './queue-errors';
import { QueueStoreWatch } from './queue-store-watch';
import { queueKeyPrefix } from './redis-client';
import { QUEUE_JOB, QueueJobHandler, RunLater } from './queue-job';

type AnyHandler = QueueJobHandler<JobName>;

/**
 * The worker's consumers: one BullMQ worker per queue that has a @QueueJob class in this
 * process, built from the catalogue's queue settings and the service config (lock duration: how
 * soon a job held by a dead worker is taken again; the lookup rate limit, shared by every
 * process). An unknown job name fails the job rather than dropping it. The catalogue's repeatable
 * jobs whose class runs here are registered too (an upsert: replicas agree on one), and again
 * whenever the QueueStoreWatch finds their queue's store came back empty.
 */
@Injectable()
export class JobRunner implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly workers = new Map<QueueName, Worker>();
  private connection: ConnectionOptions | undefined;
  private readonly logger = new Logger('JobRunner');
  /** The catalogue's schedules whose job runs in this process. */
  private readonly schedules: ScheduleName[] = [];
  /** Looks at queues only the previous release fed, under way (drainIfHolding). */
  private readonly looking: Promise<void>[] = [];
  private stopping = false;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly jobs: JobProducer,
    private readonly reflector: Reflector,
    private readonly storeWatch: QueueStoreWatch,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  onApplicationBootstrap(): void {
    const byQueue = new Map<QueueName, Map<string, AnyHandler>>();
    for (const wrapper of this.discovery.getProviders()) {
      const name = wrapper.metatype
        ? this.reflector.get<JobName | undefined>(QUEUE_JOB, wrapper.metatype)
        : undefined;
      if (!name || !wrapper.instance) continue;
      const queue = JOB_QUEUE[name];
      const handlers = byQueue.get(queue) ?? new Map<string, AnyHandler>();
      handlers.set(name, wrapper.instance as AnyHandler);
      byQueue.set(queue, handlers);
    }
    for (const [queue, handlers] of byQueue) {
      if (QUEUE_WORKERS[queue].drainOnly) this.looking.push(this.drainIfHolding(queue, handlers));
      else this.workers.set(queue, this.start(queue, handlers));
    }
    const scheduled = Object.keys(JOB_SCHEDULES) as ScheduleName[];
    for (const schedule of scheduled) {
      const handlers = byQueue.get(JOB_QUEUE[JOB_SCHEDULES[schedule].job]);
      if (handlers?.has(JOB_SCHEDULES[schedule].job)) this.schedules.push(schedule);
    }
    for (const schedule of this.schedules) void this.schedule(schedule);
    this.storeWatch.start((queues) => this.reschedule(queues));
  }

  /** Registers again the schedules of these queues (their store came back empty); how many. */
  private async reschedule(queues: readonly QueueName[]): Promise<number> {
    const lost = this.schedules.filter((schedule) =>
      queues.includes(JOB_QUEUE[JOB_SCHEDULES[schedule].job]),
    );
    await Promise.all(lost.map((schedule) => this.jobs.schedule(schedule)));
    return lost.length;
  }

  private async schedule(schedule: ScheduleName): Promise<void> {
    try {
      await this.jobs.schedule(schedule);
    } catch (error) {
      // The worker still serves its queues; the next start schedules it again.
      this.logger.warn(`${schedule} not scheduled: ${(error as Error).message}`);
    }
  }

  /**
   * Consumes a queue only the previous release fed if it holds jobs now (asked through a queue
   * of its own, closed at once). Jobs it is given later, by a previous release's process still
   * running, are that process's to take; should it stop first, their rows come due again when
   * their claims lapse.
   */
  private async drainIfHolding(queue: QueueName, handlers: Map<string, AnyHandler>): Promise<void> {
    this.connection ??= queueConnectionFor(this.config);
    const asked = new Queue(queue, {
      connection: this.connection,
      prefix: queueKeyPrefix(this.config, queue),
    });
    try {
      const counts = await asked.getJobCounts(...HELD_STATES);
      const held = Object.values(counts).reduce((sum, count) => sum + count, 0);
      if (held === 0 || this.stopping || this.workers.has(queue)) return;
      this.logger.log(`${queue}: ${held} jobs of the previous release to run`);
      this.workers.set(queue, this.start(queue, handlers));
    } catch (error) {
      this.logger.warn(`${queue} not looked at: ${(error as Error).message}`);
    } finally {
      await asked.close().catch(() => undefined);
    }
  }

  /** The running consumer of a queue (health and tests look at them). */
  worker(queue: QueueName): Worker | undefined {
    return this.workers.get(queue);
  }

  /** Graceful: active jobs finish first. (A killed process leaves them to the stall check.) */
  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.looking);
    await Promise.all([...this.workers.values()].map((worker) => worker.close()));
    if (this.connection) closeQueueConnection(this.connection);
  }

  private start(queue: QueueName, handlers: Map<string, AnyHandler>): Worker {
    const logger = new Logger(`Worker:${queue}`);
    const settings = QUEUE_WORKERS[queue];
    this.connection ??= queueConnectionFor(this.config);
    const handlerOf = (job: Job): AnyHandler => {
      const handler = handlers.get(job.name);
      if (!handler) throw new Error(`no handler for job ${job.name} on ${queue}`);
      return handler;
    };
    const worker = new Worker(
      queue,
      async (job: Job, token?: string) => {
        const outcome = await handlerOf(job).run(job.data as JobData[JobName], job);
        const later = outcome as RunLater | undefined;
        if (later && typeof later.runLaterMs === 'number' && later.runLaterMs > 0) {
          await job.moveToDelayed(Date.now() + later.runLaterMs, token);
          throw new DelayedError();
        }
        return outcome;
      },
      {
        connection: this.connection,
        prefix: queueKeyPrefix(this.config, queue),
        concurrency: settings.concurrency,
        lockDuration: this.config.jobLockMs,
        stalledInterval: Math.min(this.config.jobLockMs, 30_000),
        // Every job is safe to run again: a stall means its worker died (a deploy, an OOM kill),
        // so a job outlives a few of those before it becomes a dead letter (BullMQ's default: 1).
        maxStalledCount: MAX_STALLS,
        ...(settings.lookupRateLimited
          ? { limiter: { max: this.config.lookupsPerSecond, duration: 1000 } }
          : {}),
        settings: {
          backoffStrategy: (
            attemptsMade: number,
            _type?: string,
            _error?: Error,
            job?: MinimalJob,
          ) => {
            const handler = job ? handlers.get(job.name) : undefined;
            if (!job || !handler?.backoff) throw new Error(`no backoff for job ${job?.name}`);
            return handler.backoff(attemptsMade, job);
          },
        },
      },
    );
    logQueueErrorsOnce(worker, logger, 'worker');
    worker.on('failed', (job: Job | undefined, error: Error) => {
      if (!job) return;
      void releaseDeduplication(job, logger);
      const exhausted = job.attemptsMade >= (job.opts.attempts ?? 1);
      logger.warn(
        { jobId: job.id, name: job.name, attemptsMade: job.attemptsMade, exhausted },
        `job failed: ${error.message}`,
      );
      const handler = handlers.get(job.name);
      if (exhausted && handler?.exhausted) {
        void handler
          .exhausted(job.data as JobData[JobName], error)
          .catch((cause: Error) => logger.warn(cause.message));
      }
    });
    return worker;
  }
}

/** Worker deaths a job survives before it fails as stalled. */
export const MAX_STALLS = 5;

/**
 * A job that failed for good (retries used, or stalled too often) must not keep its
 * de-duplication key: every later job of the same key would be dropped as its duplicate, and the
 * PostgreSQL backend keeps the key of a job failed as stalled. Released only while this job owns it.
 */
export async function releaseDeduplication(
  job: Pick<Job, 'id' | 'opts' | 'isFailed' | 'removeDeduplicationKey'>,
  logger: Pick<Logger, 'warn'>,
): Promise<void> {
  if (!job.opts.deduplication) return;
  try {
    if (await job.isFailed()) await job.removeDeduplicationKey();
  } catch (error) {
    logger.warn(`de-duplication key of job ${job.id} not released: ${(error as Error).message}`);
  }
}
