import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { PreparedStatement, runPrepared } from '@app/persistence';
import { RedisConnection } from '@app/queues';

/**
 * Reserves the interval for this order unless a reservation is still running; answers 0 when it
 * reserved, else the milliseconds left. The INSERT's snapshot still sees a reservation it did not
 * replace, so one statement both tries and reads.
 */
const RESERVE: PreparedStatement = {
  name: 'lookup-reserve',
  text: `WITH reserved AS (
           INSERT INTO lookup_reservations (order_id, reserved_until)
           VALUES ($1, now() + make_interval(secs => $2::double precision))
           ON CONFLICT (order_id) DO UPDATE SET reserved_until = EXCLUDED.reserved_until
             WHERE lookup_reservations.reserved_until <= now()
           RETURNING 0::double precision AS wait_ms)
         SELECT wait_ms FROM reserved
         UNION ALL
         SELECT GREATEST(0, EXTRACT(EPOCH FROM reserved_until - now()) * 1000)::double precision
           FROM lookup_reservations
          WHERE order_id = $1 AND NOT EXISTS (SELECT 1 FROM reserved)`,
};

/**
 * Per order, a lookup caused by notifications may start at most once per interval, shared by
 * every worker: through Redis when queues run there, else through PostgreSQL (lookup_reservations).
 * The first notification is looked up at once; the rest of a burst waits for the interval and is
 * covered by one more lookup. If the store cannot be asked, the lookup goes ahead (the in-process
 * coalescing of OrderSyncService still applies). Lapsed reservations are removed by retention.
 */
@Injectable()
export class LookupThrottle {
  constructor(
    private readonly dataSource: DataSource,
    private readonly redis: RedisConnection,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  /** 0 when a lookup may start now (and reserves the interval), else the milliseconds to wait. */
  async reserve(orderId: string): Promise<number> {
    const interval = this.config.orderLookupIntervalMs;
    if (interval <= 0) return 0;
    try {
      return this.redis.client
        ? await this.reserveInRedis(orderId, interval)
        : await this.reserveInPostgres(orderId, interval);
    } catch {
      return 0;
    }
  }

  private async reserveInRedis(orderId: string, interval: number): Promise<number> {
    const client = this.redis.client!;
    const key = `${this.config.queuePrefix}:lookup-throttle:${orderId}`;
    const reserved = await client.set(key, '1', 'PX', interval, 'NX');
    if (reserved === 'OK') return 0;
    const remaining = await client.pttl(key);
    return remaining > 0 ? remaining : 0;
  }

  private async reserveInPostgres(orderId: string, interval: number): Promise<number> {
    const [row] = await runPrepared<{ wait_ms: number }>(this.dataSource, RESERVE, [
      orderId,
      interval / 1000,
    ]);
    return row ? Math.ceil(Number(row.wait_ms)) : 0;
  }
}
