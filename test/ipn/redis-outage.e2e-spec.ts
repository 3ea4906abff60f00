import { DataSource } from 'typeorm';
import { TcpProxy } from '../foundation/tcp-proxy';
import { openTestDataSource } from '../support/database';
import { LocalRedisServer, redisForTest } from '../support/redis-servers';
import { RunningService, startService, waitFor } from '../support/service';
import {
  inboxOf,
  notify,
  paidSilently,
  RESILIENCE_ENV,
  transitionsOf,
  waitForStatus,
} from './ipn-support';

/**
 * Redis lost while notifications arrive: every one is acknowledged and stored, none is lost, and
 * each is applied once Redis returns. Queues on Redis in both passes (without servers, on a
 * redis-server of its own), reached through a proxy the test cuts.
 */
describe('IPN resilience: Redis lost while notifications arrive', () => {
  let service: RunningService;
  let dataSource: DataSource;
  let server: LocalRedisServer;
  let redis: TcpProxy;

  beforeAll(async () => {
    server = await redisForTest();
    const target = new URL(server.url);
    redis = new TcpProxy(target.hostname, Number(target.port || 6379));
    await redis.open();
    service = await startService({
      worker: true,
      env: {
        QUEUE_BACKEND: 'redis',
        // Both apps reach Redis only through the proxy the test can cut.
        REDIS_URL: `redis://127.0.0.1:${redis.port}`,
        ...RESILIENCE_ENV,
      },
    });
    dataSource = await openTestDataSource();
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await redis?.close();
    await server?.stop();
    await dataSource?.destroy();
  });

  it('loses nothing when Redis is down while notifications arrive, and applies them once it returns', async () => {
    const checkouts = await paidSilently(service, 3);
    await redis.close();
    try {
      for (const checkout of checkouts) {
        const started = Date.now();
        const ack = await notify(service, {
          trackingId: checkout.orderTrackingId,
          reference: checkout.reference,
        });
        expect(ack.status).toBe(200);
        expect(ack.body.status).toBe(200);
        expect(Date.now() - started).toBeLessThan(5000);
        const [row] = await inboxOf(dataSource, checkout.orderTrackingId);
        expect(row.status).toBe('received');
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
      for (const checkout of checkouts) {
        const [row] = await inboxOf(dataSource, checkout.orderTrackingId);
        expect(row.status).toBe('received');
      }
    } finally {
      await redis.open();
    }
    for (const checkout of checkouts) {
      const order = await waitForStatus(dataSource, checkout.reference, 'completed', 30_000);
      expect(await transitionsOf(dataSource, order.id)).toEqual(['pending->completed']);
      await waitFor('row applied', async () => {
        const [row] = await inboxOf(dataSource, checkout.orderTrackingId);
        return row.status === 'applied';
      });
    }
  }, 60_000);
});
