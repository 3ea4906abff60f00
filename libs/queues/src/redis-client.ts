import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import Redis, { Cluster, RedisOptions } from 'ioredis';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { logQueueErrorsOnce } from './queue-errors';

/** One Redis server or a Redis Cluster: the service's commands are single-key, so either serves. */
export type RedisClient = Redis | Cluster;

const reconnectDelay = (attempt: number): number => Math.min(attempt * 200, 2000);

/** Fails fast while Redis is down, so callers can fall back (and readiness can report it). */
export const FAIL_FAST: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  connectTimeout: 2000,
  retryStrategy: reconnectDelay,
};

/**
 * A client for REDIS_URL, or for the cluster seeded by REDIS_CLUSTER_NODES: credentials and TLS of
 * a cluster come from its first node's URL and apply to every node it discovers.
 */
export function connectRedis(config: ServiceConfig, options: RedisOptions): RedisClient {
  if (config.redisClusterNodes.length === 0) return new Redis(config.redisUrl, options);
  const nodes = config.redisClusterNodes.map((node) => new URL(node));
  const first = nodes[0];
  const { enableOfflineQueue, retryStrategy, ...perNode } = options;
  return new Cluster(
    nodes.map((node) => ({ host: node.hostname, port: Number(node.port) })),
    {
      enableOfflineQueue,
      clusterRetryStrategy: (attempt) =>
        retryStrategy ? (retryStrategy(attempt) ?? null) : reconnectDelay(attempt),
      redisOptions: {
        ...perNode,
        username: first.username ? decodeURIComponent(first.username) : undefined,
        password: first.password ? decodeURIComponent(first.password) : undefined,
        tls: first.protocol === 'rediss:' ? {} : undefined,
      },
    },
  );
}

/**
 * BullMQ's key prefix for a queue. On a cluster every key of a queue must share one hash slot
 * (BullMQ's scripts touch several at once), so the prefix carries a hash tag per queue, which also
 * spreads the queues over the masters. On one server the keys keep their plain names, so an
 * upgrade finds the jobs it left.
 */
export function queueKeyPrefix(config: ServiceConfig, queue: string): string {
  return config.redisClusterNodes.length > 0
    ? `{${config.queuePrefix}:${queue}}`
    : config.queuePrefix;
}

/**
 * The service's own Redis connection (token cache, health, coalescing, rate windows). Commands
 * fail fast while Redis is down instead of queueing in memory. Absent (null) when queues run on
 * the PostgreSQL backend.
 */
@Injectable()
export class RedisConnection implements OnModuleDestroy {
  private readonly logger = new Logger(RedisConnection.name);
  readonly client: RedisClient | null;

  constructor(@Inject(SERVICE_CONFIG) config: ServiceConfig) {
    if (config.queueBackend === 'postgres') {
      this.client = null;
      return;
    }
    // Commands sent in one tick (a verification batch's reservations, one per order) leave in one
    // write: on a machine where each system call is dear, the socket's writes were a tenth of
    // the worker's time.
    this.client = connectRedis(config, {
      ...FAIL_FAST,
      lazyConnect: false,
      enableAutoPipelining: true,
    });
    logQueueErrorsOnce(this.client, this.logger, 'redis');
  }

  async onModuleDestroy(): Promise<void> {
    if (this.client) this.client.disconnect();
  }
}
