import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { openTestDataSource } from '../support/database';
import { currentTestRun } from '../support/test-servers';
import { RunningService, startService, waitFor } from '../support/service';
import { ipnUrl, reference } from '../ipn/ipn-support';
import { TcpProxy } from '../foundation/tcp-proxy';
import { redisForTest, startRedisServer } from '../support/redis-servers';
import { RedisConnection } from '@app/queues';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { SharedRateWindows } from '../../libs/checkout/src/http/rate-limits';

/** Small ceilings so a test reaches them; the defaults are in the README. */
const SHOP_PER_MINUTE = 5;
const ADMIN_PER_MINUTE = 3;
const IPN_PER_MINUTE = 4;

describe('rate limits: per API key on the shop and admin routes, per source address on the IPN route', () => {
  let service: RunningService;
  let dataSource: DataSource;

  beforeAll(async () => {
    service = await startService({
      env: {
        // Windows of its own: requests without a key from other suites share 127.0.0.1.
        QUEUE_PREFIX: `${currentTestRun().queuePrefix}_ratelimits`,
        RATE_LIMIT_SHOP_PER_MINUTE: String(SHOP_PER_MINUTE),
        RATE_LIMIT_ADMIN_PER_MINUTE: String(ADMIN_PER_MINUTE),
        RATE_LIMIT_IPN_PER_MINUTE: String(IPN_PER_MINUTE),
      },
    });
    dataSource = await openTestDataSource();
  }, 60_000);

  afterAll(async () => {
    await dataSource?.destroy();
    await service?.close();
  });

  const orderCount = async () =>
    Number(((await dataSource.query('SELECT count(*) AS n FROM orders')) as { n: string }[])[0].n);

  it('answers 429 with Retry-After once a shop key spends its minute, and creates nothing then', async () => {
    const answers = [];
    for (let i = 0; i < SHOP_PER_MINUTE; i += 1) {
      answers.push(
        await request(service.apiUrl)
          .get(`/v1/orders/${reference('RL')}`)
          .set(service.shopAuth),
      );
    }
    expect(answers.map((a) => a.status)).toEqual(Array(SHOP_PER_MINUTE).fill(404));
    expect(answers[0].headers['x-ratelimit-limit']).toBe(String(SHOP_PER_MINUTE));
    expect(answers[SHOP_PER_MINUTE - 1].headers['x-ratelimit-remaining']).toBe('0');

    const before = await orderCount();
    const refused = await request(service.apiUrl)
      .post('/v1/checkouts')
      .set(service.shopAuth)
      .send({
        amount: '10.00',
        currency: 'KES',
        description: 'over the limit',
        reference: reference('RL'),
        customer: { email: 'amina@example.com' },
        return_url: 'https://shop.example/thanks',
      });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await orderCount()).toBe(before);
    expect(JSON.stringify(refused.body)).not.toContain(service.shopKey);

    // The admin key has a window of its own, and so do unlimited routes.
    const admin = await request(service.apiUrl)
      .get('/v1/admin/orders?limit=1')
      .set(service.adminAuth);
    expect(admin.status).toBe(200);
    for (let i = 0; i < 10; i += 1) {
      expect((await request(service.apiUrl).get('/health/live')).status).toBe(200);
    }
  });

  it('keeps each admin key to its own minute', async () => {
    const statuses = [];
    for (let i = 0; i < ADMIN_PER_MINUTE + 2; i += 1) {
      statuses.push(
        (await request(service.apiUrl).get('/v1/admin/orders?limit=1').set(service.adminAuth))
          .status,
      );
    }
    // One request was spent by the previous test.
    expect(statuses).toEqual([200, 200, 429, 429, 429]);
  });

  it('limits requests without a key by source address', async () => {
    const statuses = [];
    for (let i = 0; i < SHOP_PER_MINUTE + 1; i += 1) {
      statuses.push((await request(service.apiUrl).get('/v1/orders/x')).status);
    }
    expect(statuses.slice(0, SHOP_PER_MINUTE)).toEqual(Array(SHOP_PER_MINUTE).fill(401));
    expect(statuses[SHOP_PER_MINUTE]).toBe(429);
  });

  it('two replicas leasing from one shared window let exactly its limit through between them', async () => {
    // The api's own windows and a second replica's, on the same store (Redis, or PostgreSQL on
    // the Postgres queue backend): far below the limit each takes hits a lease at a time.
    const own = service.apiApp.get(SharedRateWindows);
    const other = new SharedRateWindows(
      service.apiApp.get(RedisConnection),
      service.apiApp.get(DataSource),
      service.apiApp.get<ServiceConfig>(SERVICE_CONFIG),
    );
    const replicas = [own, other];
    const key = `lease-test:${randomUUID()}`;
    const limit = 600;
    const allowed = [0, 0];
    const refused = [0, 0];
    for (let i = 0; refused[0] < 2 || refused[1] < 2; i += 1) {
      const record = await replicas[i % 2].increment(key, 60_000, limit);
      expect(record.totalHits).toBeGreaterThan(0);
      if (record.isBlocked) refused[i % 2] += 1;
      else allowed[i % 2] += 1;
    }
    expect(allowed[0] + allowed[1]).toBe(limit);
    expect(allowed[0]).toBeGreaterThan(limit / 4);
    expect(allowed[1]).toBeGreaterThan(limit / 4);
  });

  it('answers a flood of notifications from one address 429 with Retry-After, storing none of the refused', async () => {
    const trackingId = randomUUID();
    const statuses = [];
    for (let i = 0; i < IPN_PER_MINUTE + 2; i += 1) {
      const answer = await request(ipnUrl(service))
        .get('')
        .query({
          OrderTrackingId: trackingId,
          OrderMerchantReference: `FLOOD-${i}`,
          OrderNotificationType: 'IPNCHANGE',
        });
      statuses.push(answer.status);
      if (answer.status === 429) {
        expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(answer.body.error.code).toBe('rate_limited');
      }
    }
    expect(statuses).toEqual([...Array(IPN_PER_MINUTE).fill(200), 429, 429]);
    const [{ n }] = (await dataSource.query(
      'SELECT count(*) AS n FROM ipn_notifications WHERE order_tracking_id = $1',
      [trackingId],
    )) as { n: string }[];
    expect(Number(n)).toBe(IPN_PER_MINUTE);
  });

  it('lets requests through, unlimited, while Redis cannot count them', async () => {
    const server = await redisForTest();
    const redis = new URL(server.url);
    const proxy = new TcpProxy(redis.hostname, Number(redis.port || 6379));
    const savedRedisUrl = process.env.REDIS_URL;
    const savedBackend = process.env.QUEUE_BACKEND;
    await proxy.open();
    const viaProxy = await startService({
      env: {
        QUEUE_BACKEND: 'redis',
        REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
        RATE_LIMIT_SHOP_PER_MINUTE: '2',
      },
    });
    try {
      await proxy.close();
      const statuses = [];
      for (let i = 0; i < 5; i += 1) {
        statuses.push(
          (
            await request(viaProxy.apiUrl)
              .get(`/v1/orders/${reference('RL')}`)
              .set(viaProxy.shopAuth)
          ).status,
        );
      }
      expect(statuses).toEqual([404, 404, 404, 404, 404]);
    } finally {
      await viaProxy.close();
      await proxy.close();
      await server.stop();
      process.env.REDIS_URL = savedRedisUrl;
      process.env.QUEUE_BACKEND = savedBackend;
    }
  }, 60_000);

  it('counts on when Redis forgets the window script midway (as after a restart)', async () => {
    // The api's windows on a redis-server of the test's own: flushing the run's scripts would
    // touch every other suite, and the pass without servers has no Redis of its own.
    const server = await startRedisServer();
    const config: ServiceConfig = {
      ...service.apiApp.get<ServiceConfig>(SERVICE_CONFIG),
      queueBackend: 'redis',
      redisUrl: server.url,
      redisClusterNodes: [],
    };
    const connection = new RedisConnection(config);
    try {
      const redis = connection.client;
      if (!redis) throw new Error('the connection made no Redis client');
      await waitFor('the Redis client', () => redis.status === 'ready');
      const windows = new SharedRateWindows(connection, service.apiApp.get(DataSource), config);
      const key = `script-flush:${randomUUID()}`;
      const hits = [];
      for (let i = 0; i < SHOP_PER_MINUTE + 1; i += 1) {
        if (i === 2) await redis.script('FLUSH');
        const record = await windows.increment(key, 60_000, SHOP_PER_MINUTE);
        hits.push(`${record.totalHits}${record.isBlocked ? ' blocked' : ''}`);
      }
      expect(hits).toEqual(['1', '2', '3', '4', '5', '6 blocked']);
      // The count after the flush met the lost script (NOSCRIPT) and sent it again.
      expect(await redis.info('errorstats')).toMatch(/errorstat_NOSCRIPT:count=1\b/);
    } finally {
      await connection.onModuleDestroy();
      await server.stop();
    }
  });
});
