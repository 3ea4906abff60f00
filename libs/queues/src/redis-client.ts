import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import Redis from 'ioredis';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';

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
    let lastError = '';
    this.client.on('error', (error: Error) => {
      // ioredis repeats the same error on every reconnect attempt; log each distinct one once.
      if (error.message !== lastError) this.logger.warn(`redis: ${error.message}`);
      lastError = error.message;
    });
    this.client.on('ready', () => {
      if (lastError) this.logger.log('redis: connection restored');
      lastError = '';
    });
  }

  async onModuleDestroy(): Promise<void> {
    if (this.client) this.client.disconnect();
  }
}
