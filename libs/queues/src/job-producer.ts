import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { ConnectionOptions, Job, JobType, Queue } from 'bullmq';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { withTimeout } from './with-timeout';
import {
  JOB_QUEUE,
  JOB_SCHEDULES,
  JobData,
  JobName,
  jobOptions,
  QUEUE_NAMES,
  QueueName,
  ScheduleName,
} from './job-catalogue';
import { closeQueueConnection, queueConnectionFor } from './queue-backend';
import { logQueueErrorsOnce } from './queue-errors';
import { FAIL_FAST, queueKeyPrefix } from './redis-client';

/** The states of a job queued and not finished. */
// (While a queue is paused the PostgreSQL backend lists its waiting jobs as paused.)
export const HELD_STATES = ['active', 'waiting', 'delayed', 'prioritized', 'paused'] as JobType[];

/** A queue that does not take a job within this long is treated as down for this call. */
export const QUEUE_ADD_TIMEOUT_MS = 5000;

/**
 * The one way to put a job on a queue, in either process: the name picks the queue and the
 * catalogue the options. Its connections fail fast while Redis is down (no offline queue) and
 * every call is bounded, so a caller holding rows (a relay) or a request (an admin) learns at once
 * and keeps its work in Postgres. Queues are made on first use, one per queue per process.
 */
@Injectable()
export class JobProducer implements OnModuleDestroy {
  private readonly logger = new Logger(JobProducer.name);
  private readonly queues = new Map<QueueName, Queue>();
  private readonly connection: ConnectionOptions;

  constructor(@Inject(SERVICE_CONFIG) private readonly config: ServiceConfig) {
    this.connection = queueConnectionFor(config, FAIL_FAST);
  }

  async add<N extends JobName>(name: N, data: JobData[N]): Promise<Job> {
    return withTimeout(
      this.queueOf(name).add(name, data, jobOptions(name, data)),
      QUEUE_ADD_TIMEOUT_MS,
      `queueing ${name}`,
    );
  }

  async addBulk<N extends JobName>(name: N, list: JobData[N][]): Promise<void> {
    if (list.length === 0) return;
    await withTimeout(
      this.queueOf(name).addBulk(
        list.map((data) => ({ name, data, opts: jobOptions(name, data) })),
      ),
      QUEUE_ADD_TIMEOUT_MS,
      `queueing ${list.length} ${name}`,
    );
  }

  /** Each job to run once its delay has passed (ms from now); options from the catalogue. */
  async addLater<N extends JobName>(
    name: N,
    list: { data: JobData[N]; delayMs: number }[],
  ): Promise<void> {
    if (list.length === 0) return;
    await withTimeout(
      this.queueOf(name).addBulk(
        list.map(({ data, delayMs }) => ({
          name,
          data,
          opts: { ...jobOptions(name, data), delay: Math.max(0, Math.round(delayMs)) },
        })),
      ),
      QUEUE_ADD_TIMEOUT_MS,
      `queueing ${list.length} ${name} for later`,
    );
  }

  /**
   * The data of every job of this name its queue holds and has not finished (waiting, active,
   * delayed): after the store came back empty, what was queued since. A hundred at a time per
   * state; throws when the queue cannot be asked.
   */
  async held<N extends JobName>(name: N): Promise<JobData[N][]> {
    const queue = this.queueOf(name);
    const found: JobData[N][] = [];
    for (const state of HELD_STATES) {
      for (let start = 0; ; start += 100) {
        const page = await withTimeout(
          queue.getJobs([state], start, start + 99, true),
          QUEUE_ADD_TIMEOUT_MS,
          `listing ${state} ${name}`,
        );
        for (const job of page) if (job?.name === name) found.push(job.data as JobData[N]);
        if (page.length < 100) break;
      }
    }
    return found;
  }

  /** The job these data would be queued as, if its queue still holds it (ids from the catalogue). */
  async existing<N extends JobName>(name: N, data: JobData[N]): Promise<Job | undefined> {
    const { jobId } = jobOptions(name, data);
    return jobId ? this.queueOf(name).getJob(jobId) : undefined;
  }

  /**
   * Of these jobs (each with a catalogue id), the ones the queue does not hold: after the store
   * came back empty, the claims whose jobs were lost, not those queued since. Asked a hundred at
   * a time; throws when the queue cannot be asked.
   */
  async notHeld<N extends JobName>(name: N, list: JobData[N][]): Promise<JobData[N][]> {
    const lost: JobData[N][] = [];
    for (let start = 0; start < list.length; start += 100) {
      const batch = list.slice(start, start + 100);
      const held = await withTimeout(
        Promise.all(batch.map((data) => this.existing(name, data))),
        QUEUE_ADD_TIMEOUT_MS,
        `looking for ${batch.length} ${name}`,
      );
      lost.push(...batch.filter((_data, index) => !held[index]));
    }
    return lost;
  }

  /** Registers a repeatable job of the catalogue. */
  async schedule(schedule: ScheduleName): Promise<void> {
    const { job, pattern, tz, data } = JOB_SCHEDULES[schedule];
    await withTimeout(
      this.queueOf(job).upsertJobScheduler(
        schedule,
        { pattern, tz },
        { name: job, data, opts: jobOptions(job, data) },
      ),
      QUEUE_ADD_TIMEOUT_MS,
      `scheduling ${schedule}`,
    );
  }

  /**
   * Jobs waiting to be taken (not active, not delayed), paused or not; null when the queue cannot
   * be asked. (While a queue is paused the PostgreSQL backend counts its waiting jobs as paused.)
   */
  async waitingCount(queue: QueueName): Promise<number | null> {
    try {
      const counts = await withTimeout(
        this.queue(queue).getJobCounts('wait', 'paused' as JobType),
        QUEUE_ADD_TIMEOUT_MS,
        'count',
      );
      return (counts.wait ?? 0) + (counts.paused ?? 0);
    } catch {
      return null;
    }
  }

  /** A queue to look into (dead letters, the dashboard), made on first use. */
  queue(name: QueueName): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, {
        connection: this.connection,
        prefix: queueKeyPrefix(this.config, name),
      });
      logQueueErrorsOnce(queue, this.logger, `${name} queue`);
      this.queues.set(name, queue);
    }
    return queue;
  }

  /** Every queue of the catalogue. */
  all(): ReadonlyMap<QueueName, Queue> {
    return new Map(QUEUE_NAMES.map((name) => [name, this.queue(name)]));
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.close().catch(() => {})));
    closeQueueConnection(this.connection);
  }

  private queueOf(name: JobName): Queue {
    return this.queue(JOB_QUEUE[name]);
  }
}
