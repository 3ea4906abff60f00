import { DataSource } from 'typeorm';
import { LocalRedisServer, redisForTest } from '../support/redis-servers';
import { currentTestRun, TEST_CONNECT_TIMEOUT_MS } from '../support/test-servers';
import { bootApi, readiness, RunningApi, waitForReadiness } from './boot-api';
import { TcpProxy } from './tcp-proxy';

/**
 * Readiness follows the real servers: the api reaches Postgres and Redis through proxies the test
 * can cut, and /health/ready must turn 503 naming the lost server and recover by itself. Its
 * queues are on Redis in both passes (without servers, on a redis-server of its own).
 */
const run = currentTestRun();
const postgresTarget = new URL(run.databaseUrl);
const shopKey = `readiness_${Date.now().toString(36)}`;

describe('GET /health/ready follows Postgres and Redis', () => {
  const postgresProxy = new TcpProxy(postgresTarget.hostname, Number(postgresTarget.port || 5432));
  let redis: LocalRedisServer;
  let redisProxy: TcpProxy;
  let api: RunningApi;

  beforeAll(async () => {
    redis = await redisForTest();
    const redisTarget = new URL(redis.url);
    redisProxy = new TcpProxy(redisTarget.hostname, Number(redisTarget.port || 6379));
    await postgresProxy.open();
    await redisProxy.open();
    const databaseUrl = new URL(run.databaseUrl);
    databaseUrl.port = String(postgresProxy.port);
    api = await bootApi({
      DATABASE_URL: databaseUrl.toString(),
      REDIS_URL: `redis://127.0.0.1:${redisProxy.port}`,
      QUEUE_BACKEND: 'redis',
      SHOP_API_KEYS: `readiness-shop:${shopKey}`,
    });
  });

  afterAll(async () => {
    await api?.close();
    await postgresProxy.close();
    await redisProxy?.close();
    await redis?.stop();
  });

  it('waits DATABASE_CONNECT_TIMEOUT_MS for a new connection to Postgres', () => {
    const { extra } = api.app.get(DataSource).options as { extra: Record<string, unknown> };
    expect(extra.connectionTimeoutMillis).toBe(TEST_CONNECT_TIMEOUT_MS);
  });

  it('answers 200 when both servers answer', async () => {
    const answer = await readiness(api.baseUrl);
    expect(answer.status).toBe(200);
    expect(answer.body.info?.postgres?.status).toBe('up');
    expect(answer.body.info?.redis?.status).toBe('up');
  });

  it('turns 503 naming redis with a reason, then recovers', async () => {
    await redisProxy.close();
    const down = await waitForReadiness(api.baseUrl, 503);
    expect(down.body.error?.redis?.status).toBe('down');
    expect(down.body.error?.redis?.message).toEqual(expect.stringMatching(/\S/));
    expect(down.body.error?.postgres).toBeUndefined();

    await redisProxy.open();
    const back = await waitForReadiness(api.baseUrl, 200);
    expect(back.body.info?.redis?.status).toBe('up');
  });

  it('turns 503 naming postgres with a reason, then recovers', async () => {
    await postgresProxy.close();
    const down = await waitForReadiness(api.baseUrl, 503);
    expect(down.body.error?.postgres?.status).toBe('down');
    expect(down.body.error?.postgres?.message).toEqual(expect.stringMatching(/\S/));
    expect(down.body.error?.redis).toBeUndefined();

    // A shop's request meanwhile: 503 with a code to branch on and when to retry, not a 500.
    const lookup = await fetch(`${api.baseUrl}/v1/orders/some-order`, {
      headers: { authorization: `Bearer ${shopKey}` },
    });
    expect(lookup.status).toBe(503);
    expect(lookup.headers.get('retry-after')).toBe('2');
    expect(((await lookup.json()) as { error: { code: string } }).error.code).toBe(
      'database_unavailable',
    );

    await postgresProxy.open();
    const back = await waitForReadiness(api.baseUrl, 200);
    expect(back.body.info?.postgres?.status).toBe('up');
  });
});
