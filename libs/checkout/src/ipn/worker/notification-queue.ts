import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { ConnectionOptions, Queue } from 'bullmq';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { JobData, jobOptions, queueConnectionFor, QUEUES, redisOptionsFromUrl } from '@app/queues';

/**
 * Puts stored notifications on the verification queue. Its own connection fails fast while Redis
 * is down (no offline queue): the rows stay in the inbox and the relay tries again on its next pass.
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

  /** True once every job is on the queue (or de-duplicated into one already there). */
  async addMany(list: JobData['verify-notification'][], timeoutMs = 5000): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.queue.addBulk(
          list.map((data) => ({
            name: 'verify-notification',
            data,
            opts: jobOptions('verify-notification', data),
          })),
        ),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('queue add timed out')), timeoutMs);
        }),
      ]);
      if (this.lastError) this.logger.log('notification queue reachable again');
      this.lastError = '';
      return true;
    } catch (error) {
      const message = (error as Error).message;
      if (message !== this.lastError) this.logger.warn(`notifications not queued: ${message}`);
      this.lastError = message;
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Jobs waiting to be taken (not active, not delayed); null when the queue cannot be asked. */
  async waitingCount(): Promise<number | null> {
    try {
      return await this.queue.getWaitingCount();
    } catch {
      return null;
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.queue.close().catch(() => undefined);
  }
}
