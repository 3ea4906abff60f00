import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { ConnectionOptions, Queue } from 'bullmq';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { JobData, jobOptions, queueConnectionFor, QUEUES, redisOptionsFromUrl } from '@app/queues';

/**
 * Puts notifications on the verification queue. Its own connection fails fast while Redis is down
 * (no offline queue): the inbox row is already stored, and the sweeper queues it when Redis is back,
 * so waiting here would only hold the gateway's request open.
 */
@Injectable()
export class NotificationQueue implements OnModuleDestroy {
  private readonly logger = new Logger(NotificationQueue.name);
  private readonly queue: Queue;
  private lastError = '';

  constructor(@Inject(SERVICE_CONFIG) config: ServiceConfig) {
    const connection: ConnectionOptions =
      config.queueBackend === 'postgres'
        ? queueConnectionFor(config)
        : redisOptionsFromUrl(config.redisUrl, {
            enableOfflineQueue: false,
            maxRetriesPerRequest: 1,
            connectTimeout: 2000,
            retryStrategy: (attempt: number) => Math.min(attempt * 200, 2000),
          });
    this.queue = new Queue(QUEUES.notifications, { connection, prefix: config.queuePrefix });
    this.queue.on('error', (error: Error) => {
      if (error.message !== this.lastError)
        this.logger.warn(`notification queue: ${error.message}`);
      this.lastError = error.message;
    });
  }

  /** True once the job is on the queue (or de-duplicated into one already there). */
  async add(data: JobData['verify-notification'], timeoutMs = 2000): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.queue.add('verify-notification', data, jobOptions('verify-notification', data)),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('queue add timed out')), timeoutMs);
        }),
      ]);
      this.lastError = '';
      return true;
    } catch (error) {
      const message = (error as Error).message;
      if (message !== this.lastError) this.logger.warn(`notification not queued: ${message}`);
      this.lastError = message;
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.queue.close().catch(() => undefined);
  }
}
