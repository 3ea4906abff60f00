import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import Redis from 'ioredis';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { logQueueErrorsOnce } from './queue-errors';

/**
 * The service's own Redis connection (token cache, health, coalescing). Commands fail fast while
 * Redis is down instead of queueing in memory, so callers can fall back and readiness can report it.
 * Absent (null) when queues run on the PostgreSQL backend.
 */
@Injectable()
export class RedisConnection implements OnModuleDestroy {
  private readonly logger = new Logger(RedisConnection.name);
  readonly client: Redis | null;

  constructor(@Inject(SERVICE_CONFIG) config: ServiceConfig) {
    if (config.queueBackend === 'postgres') {
      this.client = null;
      return;
    }
    this.client = new Redis(config.redisUrl, {
      lazyConnect: false,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    });
    logQueueErrorsOnce(this.client, this.logger, 'redis');
  }

  async onModuleDestroy(): Promise<void> {
    if (this.client) this.client.disconnect();
  }
}
