import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { Queue } from 'bullmq';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { queueConnectionFor, QueueName, QUEUES } from '@app/queues';

export interface DeadLetter {
  queue: QueueName;
  jobId: string;
  name: string;
  data: unknown;
  failedReason: string;
  attemptsMade: number;
  failedAt: string | null;
}

/**
 * Jobs that used every attempt stay in BullMQ's failed set (kept a week): this lists them across
 * all queues and replays one. For the admin endpoints.
 */
@Injectable()
export class DeadLetterService implements OnModuleDestroy {
  private readonly queues = new Map<QueueName, Queue>();

  constructor(@Inject(SERVICE_CONFIG) private readonly config: ServiceConfig) {}

  async list(limit = 100): Promise<DeadLetter[]> {
    const letters: DeadLetter[] = [];
    for (const name of Object.values(QUEUES)) {
      const jobs = await this.queue(name).getFailed(0, Math.max(0, limit - 1));
      for (const job of jobs) {
        letters.push({
          queue: name,
          jobId: job.id ?? '',
          name: job.name,
          data: job.data,
          failedReason: job.failedReason,
          attemptsMade: job.attemptsMade,
          failedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
        });
      }
    }
    return letters
      .sort((a, b) => (b.failedAt ?? '').localeCompare(a.failedAt ?? ''))
      .slice(0, limit);
  }

  /** Moves one failed job back to waiting with fresh attempts; false if it is not dead-lettered. */
  async replay(queue: QueueName, jobId: string): Promise<boolean> {
    if (!(Object.values(QUEUES) as string[]).includes(queue)) return false;
    const job = await this.queue(queue).getJob(jobId);
    if (!job || !(await job.isFailed())) return false;
    await job.retry('failed', { resetAttemptsMade: true });
    return true;
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
  }

  private queue(name: QueueName): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, {
        connection: queueConnectionFor(this.config),
        prefix: this.config.queuePrefix,
      });
      this.queues.set(name, queue);
    }
    return queue;
  }
}
