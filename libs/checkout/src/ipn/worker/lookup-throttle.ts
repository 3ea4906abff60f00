import { Inject, Injectable } from '@nestjs/common';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { RedisConnection } from '@app/queues';

/**
 * Per order, a lookup caused by notifications may start at most once per interval (shared by all
 * workers through Redis). The first notification is looked up at once; the rest of a burst waits
 * for the interval and is covered by one more lookup. Without Redis it lets everything through
 * (the in-process coalescing of OrderSyncService still applies).
 */
@Injectable()
export class LookupThrottle {
  constructor(
    private readonly redis: RedisConnection,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  /** 0 when a lookup may start now (and reserves the interval), else the milliseconds to wait. */
  async reserve(orderId: string): Promise<number> {
    const interval = this.config.orderLookupIntervalMs;
    const client = this.redis.client;
    if (interval <= 0 || !client) return 0;
    const key = `${this.config.queuePrefix}:lookup-throttle:${orderId}`;
    try {
      const reserved = await client.set(key, '1', 'PX', interval, 'NX');
      if (reserved === 'OK') return 0;
      const remaining = await client.pttl(key);
      return remaining > 0 ? remaining : 0;
    } catch {
      return 0;
    }
  }
}
