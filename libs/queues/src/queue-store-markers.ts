import { DataSource } from 'typeorm';
import { ServiceConfig } from '@app/config';
import { QueueName } from './job-catalogue';
import { postgresQueueSchema } from './queue-backend';
import { queueKeyPrefix, RedisClient } from './redis-client';

/**
 * A mark each queue's store keeps for as long as it keeps its jobs: planted once, never expiring,
 * written by nothing else, so its absence means the store lost everything (a Redis restarted
 * without persistence, a FLUSHALL, a Redis Cluster master replaced empty, BullMQ's PostgreSQL
 * tables emptied). Planting is set-if-absent: of several workers that find it gone, one plants it
 * again and so owns the recovery.
 */
export interface QueueStoreMarkers {
  /** The queues whose mark is missing; throws when the store cannot be asked. */
  missing(queues: readonly QueueName[]): Promise<QueueName[]>;
  /** Plants the queue's mark; true when this call planted it (it was missing). */
  plant(queue: QueueName): Promise<boolean>;
}

/** Not a job id (BullMQ refuses ids with a colon), so no job's keys can be the mark. */
const MARK = 'checkout:store-mark';

/**
 * On Redis the mark is a key beside the queue's own (`<prefix>:<queue>:…`): on a Redis Cluster it
 * carries the queue's hash tag, so it lives on the master that holds the queue and is lost with it.
 */
export class RedisQueueStoreMarkers implements QueueStoreMarkers {
  constructor(
    private readonly redis: RedisClient,
    private readonly config: ServiceConfig,
  ) {}

  keyOf(queue: QueueName): string {
    return `${queueKeyPrefix(this.config, queue)}:${queue}:${MARK}`;
  }

  async missing(queues: readonly QueueName[]): Promise<QueueName[]> {
    const present = await Promise.all(queues.map((queue) => this.redis.exists(this.keyOf(queue))));
    return queues.filter((_queue, index) => present[index] === 0);
  }

  async plant(queue: QueueName): Promise<boolean> {
    return (await this.redis.set(this.keyOf(queue), new Date().toISOString(), 'NX')) === 'OK';
  }
}

/**
 * On BullMQ's PostgreSQL backend the mark is a row of the queue's metadata (the table that mirrors
 * Redis's `<queue>:meta` hash), under a field BullMQ does not use: emptied with the queue's tables.
 */
export class PostgresQueueStoreMarkers implements QueueStoreMarkers {
  private readonly table: string;

  constructor(
    private readonly dataSource: DataSource,
    config: ServiceConfig,
  ) {
    this.table = `"${postgresQueueSchema(config.queuePrefix)}".meta`;
  }

  async missing(queues: readonly QueueName[]): Promise<QueueName[]> {
    const rows = (await this.dataSource.query(
      `SELECT queue FROM ${this.table} WHERE field = $1 AND queue = ANY($2::text[])`,
      [MARK, queues],
    )) as { queue: string }[];
    const present = new Set(rows.map((row) => row.queue));
    return queues.filter((queue) => !present.has(queue));
  }

  async plant(queue: QueueName): Promise<boolean> {
    const rows = (await this.dataSource.query(
      `INSERT INTO ${this.table} (queue, field, value) VALUES ($1, $2, $3)
       ON CONFLICT (queue, field) DO NOTHING RETURNING queue`,
      [queue, MARK, new Date().toISOString()],
    )) as unknown[];
    return rows.length > 0;
  }
}
