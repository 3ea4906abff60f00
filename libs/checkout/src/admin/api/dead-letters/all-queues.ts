import { getQueueToken } from '@nestjs/bullmq';
import { Logger, Provider } from '@nestjs/common';
import { Queue } from 'bullmq';
import { logQueueErrorsOnce, QUEUES, QueueName } from '@app/queues';

/** Every queue of the job catalogue, by name: dead letters, the inbox replay and the dashboard use them. */
export const ALL_QUEUES = Symbol('ALL_QUEUES');
export type AllQueues = ReadonlyMap<QueueName, Queue>;

export const QUEUE_NAMES = Object.values(QUEUES) as QueueName[];

export const allQueuesProvider: Provider = {
  provide: ALL_QUEUES,
  inject: QUEUE_NAMES.map((name) => getQueueToken(name)),
  useFactory: (...queues: Queue[]): AllQueues => {
    const logger = new Logger('Queues');
    queues.forEach((queue, index) =>
      logQueueErrorsOnce(queue, logger, `${QUEUE_NAMES[index]} queue`),
    );
    return new Map(QUEUE_NAMES.map((name, index) => [name, queues[index]]));
  },
};
