import { SetMetadata } from '@nestjs/common';
import { QueueName } from './job-catalogue';

/**
 * A worker class whose work lives in PostgreSQL and reaches a queue through claims with a lease
 * (a relay, a sweep): when the queue's store comes back empty (QueueStoreWatch), `requeueLost`
 * makes its claimed rows whose jobs the store no longer holds due again at once, rather than
 * after their lease, and answers how many.
 */
export interface LostJobs {
  requeueLost(): Promise<number>;
}

export const LOST_JOBS = Symbol('lost-jobs');

/** Marks a LostJobs class: `what` names its rows in the recovery's log line. */
export const RequeuesLostJobs = (queue: QueueName, what: string): ClassDecorator =>
  SetMetadata(LOST_JOBS, { queue, what });
