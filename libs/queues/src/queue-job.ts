import { SetMetadata } from '@nestjs/common';
import { Job, MinimalJob } from 'bullmq';
import { JobData, JobName } from './job-catalogue';

/** A job may ask to run again later without counting as a failed attempt. */
export interface RunLater {
  runLaterMs: number;
}

/**
 * What runs one job of the catalogue in the worker: one class per job, marked @QueueJob(name)
 * and listed as a provider of its feature's worker module. Thin, like a controller: it hands the
 * data to the feature's service.
 */
export interface QueueJobHandler<N extends JobName> {
  run(data: JobData[N], job: Job<JobData[N]>): Promise<RunLater | void | unknown>;
  /** Called once a job has used its last attempt (it now sits in the failed set). */
  exhausted?(data: JobData[N], error: Error): Promise<void>;
  /** The delay before the next attempt, for a job whose catalogue backoff is of its own type. */
  backoff?(attemptsMade: number, job: MinimalJob): number;
}

export const QUEUE_JOB = Symbol('queue-job');

export const QueueJob = (name: JobName): ClassDecorator => SetMetadata(QUEUE_JOB, name);
