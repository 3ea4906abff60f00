import { cutText } from '@app/domain';
import { Injectable } from '@nestjs/common';
import { Job } from 'bullmq';
import { JobProducer, QUEUE_NAMES, QueueName } from '@app/queues';
import { CheckoutError } from '../../../errors/checkout-error';

/**
 * The longest job id of ours: the catalogue's ids (job-catalogue.ts `jobOptions`, the longest
 * `notification-<uuid>-<attempt>-<claim>`, under 80), BullMQ's counter and its schedulers'
 * `repeat:<scheduler>:<millis>`. No job has a longer one.
 */
export const JOB_ID_MAX_LENGTH = 128;
/** A queue's name, as the dead-letter routes take it (the longest of QUEUE_NAMES). */
export const QUEUE_NAME_MAX_LENGTH = Math.max(...QUEUE_NAMES.map((name) => name.length));
/** The longest failed_reason shown: BullMQ keeps the error's message whole. */
export const DEAD_LETTER_REASON_MAX_LENGTH = 500;
/**
 * Stack traces shown, the latest ones: BullMQ keeps one per failed attempt (no stackTraceLimit is
 * set), and a replay starts the count again. 20 is the most attempts any job is given.
 */
export const DEAD_LETTER_STACKTRACES_MAX = 20;
/** The longest stack trace shown (message and frames). */
export const DEAD_LETTER_STACKTRACE_MAX_LENGTH = 4000;

export interface DeadJobView {
  queue: string;
  id: string;
  name: string;
  data: unknown;
  attempts_made: number;
  failed_reason: string | null;
  stacktrace?: string[];
  created_at: string | null;
  failed_at: string | null;
}

function toView(queue: string, job: Job, withStack = false): DeadJobView {
  return {
    queue,
    id: String(job.id),
    name: job.name,
    data: job.data,
    attempts_made: job.attemptsMade,
    failed_reason: cutText(job.failedReason, DEAD_LETTER_REASON_MAX_LENGTH),
    ...(withStack
      ? {
          stacktrace: (job.stacktrace ?? [])
            .slice(-DEAD_LETTER_STACKTRACES_MAX)
            .map((trace) => cutText(trace, DEAD_LETTER_STACKTRACE_MAX_LENGTH)),
        }
      : {}),
    created_at: job.timestamp ? new Date(job.timestamp).toISOString() : null,
    failed_at: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
  };
}

/**
 * Jobs whose retries ran out stay in their queue's failed set (removeOnFail keeps them a week):
 * that set is the dead-letter list. Replay moves a job back to waiting with its attempts reset.
 */
@Injectable()
export class DeadLetterService {
  constructor(private readonly jobs: JobProducer) {}

  async list(queueName?: string, limit = 50, offset = 0) {
    if (queueName) this.queue(queueName);
    const names = queueName ? [queueName as QueueName] : QUEUE_NAMES;
    const counts: Record<string, number> = {};
    const items: DeadJobView[] = [];
    for (const name of names) {
      const queue = this.jobs.queue(name);
      counts[name] = await queue.getFailedCount();
      const jobs = await queue.getFailed(0, offset + limit - 1);
      items.push(...jobs.filter((job): job is Job => !!job).map((job) => toView(name, job)));
    }
    items.sort((a, b) => (b.failed_at ?? '').localeCompare(a.failed_at ?? ''));
    return { counts, items: items.slice(offset, offset + limit) };
  }

  async inspect(queueName: string, jobId: string): Promise<DeadJobView & { state: string }> {
    const job = await this.job(queueName, jobId);
    return { ...toView(queueName, job, true), state: await job.getState() };
  }

  async replay(
    queueName: string,
    jobId: string,
  ): Promise<{ queue: string; id: string; state: string }> {
    const job = await this.job(queueName, jobId);
    const state = await job.getState();
    if (state !== 'failed') {
      throw new CheckoutError('job_not_failed', `job ${jobId} is ${state}, not failed`, {
        state,
      });
    }
    await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    return { queue: queueName, id: jobId, state: await job.getState() };
  }

  private queue(name: string) {
    if (!QUEUE_NAMES.includes(name as QueueName)) throw CheckoutError.notFound('queue', name);
    return this.jobs.queue(name as QueueName);
  }

  private async job(queueName: string, jobId: string): Promise<Job> {
    const job = await this.queue(queueName).getJob(jobId);
    if (!job) throw CheckoutError.notFound('job', `${queueName}/${jobId}`);
    return job;
  }
}
