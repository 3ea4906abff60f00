import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { PreparedStatement, runPrepared, StatementBatch } from '@app/persistence';
import { RedisClient, RedisConnection } from '@app/queues';

/**
 * Reserves the interval for each order unless a reservation is still running; answers, per
 * order, 0 when it reserved, else the milliseconds left. The INSERT's snapshot still sees a
 * reservation it did not replace, so one statement both tries and reads.
 */
const RESERVE: PreparedStatement = {
  name: 'lookup-reserve-many',
  text: `WITH asked AS (SELECT DISTINCT unnest($1::uuid[]) AS order_id),
         reserved AS (
           INSERT INTO lookup_reservations (order_id, reserved_until)
           SELECT order_id, now() + make_interval(secs => $2::double precision) FROM asked
           ON CONFLICT (order_id) DO UPDATE SET reserved_until = EXCLUDED.reserved_until
             WHERE lookup_reservations.reserved_until <= now()
           RETURNING order_id)
         SELECT a.order_id,
                CASE WHEN r.order_id IS NOT NULL THEN 0
                     ELSE GREATEST(0, EXTRACT(EPOCH FROM l.reserved_until - now()) * 1000)
                END::double precision AS wait_ms
           FROM asked a
           LEFT JOIN reserved r USING (order_id)
           LEFT JOIN lookup_reservations l ON l.order_id = a.order_id AND r.order_id IS NULL`,
};

/**
 * The same in Redis, for any number of orders in one command: SET NX PX per key, else its TTL.
 * The keys share one hash tag, {lookup-throttle}, so a Redis Cluster holds them in one slot (a
 * script's keys must).
 */
const REDIS_RESERVE = `
local waits = {}
for i, key in ipairs(KEYS) do
  if redis.call('SET', key, '1', 'PX', ARGV[1], 'NX') then
    waits[i] = 0
  else
    local left = redis.call('PTTL', key)
    if left < 0 then left = 0 end
    waits[i] = left
  end
end
return waits`;

type ThrottleCommands = RedisClient & {
  reserveLookups(...args: (string | number)[]): Promise<number[]>;
};

/**
 * Per order, a lookup caused by notifications may start at most once per interval, shared by
 * every worker: through Redis when queues run there, else through PostgreSQL (lookup_reservations).
 * The first notification is looked up at once; the rest of a burst waits for the interval and is
 * covered by one more lookup. The orders of a batch of notifications are reserved together (one
 * command or statement for all of them, not one each). If the store cannot be asked, the lookup
 * goes ahead (the in-process coalescing of OrderSyncService still applies). Lapsed reservations
 * are removed by retention.
 */
@Injectable()
export class LookupThrottle {
  private readonly reservations: StatementBatch<string, number>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly redis: RedisConnection,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {
    redis.client?.defineCommand('reserveLookups', { lua: REDIS_RESERVE });
    this.reservations = new StatementBatch((orderIds) => this.reserveAll(orderIds), {
      maxBatch: 100,
      maxParallel: 1,
      // One order's second reservation goes after its first, as it would alone.
      key: (orderId) => orderId,
    });
  }

  /** 0 when a lookup may start now (and reserves the interval), else the milliseconds to wait. */
  async reserve(orderId: string): Promise<number> {
    if (this.config.orderLookupIntervalMs <= 0) return 0;
    try {
      return await this.reservations.submit(orderId);
    } catch {
      return 0;
    }
  }

  private async reserveAll(orderIds: string[]): Promise<number[]> {
    const interval = this.config.orderLookupIntervalMs;
    const client = this.redis.client as ThrottleCommands | null;
    if (client) {
      const keys = orderIds.map(
        (orderId) => `${this.config.queuePrefix}:{lookup-throttle}:${orderId}`,
      );
      return client.reserveLookups(keys.length, ...keys, interval);
    }
    const rows = await runPrepared<{ order_id: string; wait_ms: number }>(
      this.dataSource,
      RESERVE,
      [orderIds, interval / 1000],
    );
    const waits = new Map(rows.map((row) => [row.order_id, Math.ceil(Number(row.wait_ms))]));
    return orderIds.map((orderId) => waits.get(orderId) ?? 0);
  }
}
