import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { OrderTrackingId } from '@app/domain';
import {
  GatewayClient,
  InMemoryTokenStore,
  RedisTokenStore,
  TokenStore,
  tokenStoreKey,
} from '@app/gateway-client';
import { PostgresTokenStore } from '@app/persistence';
import { openTestDataSource } from '../support/database';
import { redisForTest } from '../support/redis-servers';
import { RunningSandbox, SANDBOX_CREDENTIALS, startSandbox } from '../support/sandbox';
import { clientFor } from './client-under-test';

const UNKNOWN_ORDER = OrderTrackingId('00000000-0000-4000-8000-000000000000');
/**
 * The clients that count calls wait long for the gateway: on a loaded machine a login or a lookup
 * slower than the default 2 s would be retried (or the lock given up), a second call that is not
 * what these tests are about.
 */
const PATIENT_TIMEOUT_MS = 10_000;

/** A well-formed JWT the gateway never issued: exp far ahead, so only the gateway can refuse it. */
function forgedToken(): string {
  const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ uid: 'x', iat: now, exp: now + 3600 })}.forged`;
}

describe('GatewayClient against the sandbox: tokens', () => {
  let sandbox: RunningSandbox;
  /**
   * Tokens of 12 s, for the one test about expiry; the others must not race a short lifetime. Its
   * first calls have the 6 s before the renewal to finish in, even on a loaded machine.
   */
  let shortLived: RunningSandbox;
  const tokenRequests = async (from: RunningSandbox = sandbox): Promise<number> =>
    (await from.control.requests()).counts.RequestToken;

  beforeAll(async () => {
    sandbox = await startSandbox();
    shortLived = await startSandbox({ tokenLifetimeSeconds: 12 });
  });
  afterAll(() => Promise.all([sandbox.close(), shortLived.close()]));
  beforeEach(() =>
    Promise.all([sandbox.control.resetRequests(), shortLived.control.resetRequests()]),
  );

  /** A client of its own (as another process would be) sharing `key` in the store. */
  const sharingClient = (tokenStore: TokenStore, key: string) =>
    clientFor(sandbox, { tokenStore, tokenStoreKey: key, timeoutMs: PATIENT_TIMEOUT_MS });
  /** Ten calls from each of two clients at once, both without a token yet. */
  const bothCold = (first: GatewayClient, second: GatewayClient) =>
    Promise.all([
      ...Array.from({ length: 10 }, () => first.listIpns()),
      ...Array.from({ length: 10 }, () => second.listIpns()),
    ]);

  it('asks for exactly one token for 100 concurrent calls on a cold client', async () => {
    const client = clientFor(sandbox, { timeoutMs: PATIENT_TIMEOUT_MS });
    const lookups = await Promise.all(
      Array.from({ length: 100 }, () => client.getTransactionStatus(UNKNOWN_ORDER)),
    );
    expect(lookups.every((lookup) => lookup.kind === 'not_found')).toBe(true);
    const counts = (await sandbox.control.requests()).counts;
    expect(counts.RequestToken).toBe(1);
    expect(counts.GetTransactionStatus).toBe(100);
  });

  it('refreshes a token that expires mid-run exactly once, then reuses the new one', async () => {
    // Lifetime 12 s: the margin is capped at half of it, so the token is renewed after ~6 s.
    const client = clientFor(shortLived);
    await client.listIpns();
    await Promise.all(Array.from({ length: 20 }, () => client.listIpns()));
    expect(await tokenRequests(shortLived)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 6100));
    await Promise.all(Array.from({ length: 50 }, () => client.listIpns()));
    expect(await tokenRequests(shortLived)).toBe(2);
  });

  it('replaces a token the gateway refuses (HTTP 500, status null) once, and retries the call', async () => {
    const store = new InMemoryTokenStore();
    const key = `refused-${randomUUID()}`;
    const forged = forgedToken();
    await store.set(key, {
      token: forged,
      expiresAt: Date.now() + 3_600_000,
      issuedAt: Date.now(),
    });
    const client = clientFor(sandbox, { tokenStore: store, tokenStoreKey: key });
    const lookups = await Promise.all(
      Array.from({ length: 10 }, () => client.getTransactionStatus(UNKNOWN_ORDER)),
    );
    expect(lookups.every((lookup) => lookup.kind === 'not_found')).toBe(true);
    const counts = (await sandbox.control.requests()).counts;
    expect(counts.RequestToken).toBe(1);
    expect(counts.GetTransactionStatus).toBe(20);
    expect((await store.get(key))?.token).not.toBe(forged);
  });

  it('shares one token between two clients (two processes) through one Redis store', async () => {
    const server = await redisForTest();
    const redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
    try {
      const key = tokenStoreKey(
        `${process.env.QUEUE_PREFIX ?? 'test'}:${randomUUID()}`,
        sandbox.baseUrl,
        SANDBOX_CREDENTIALS.consumerKey,
      );
      expect(key).not.toContain(SANDBOX_CREDENTIALS.consumerSecret);
      expect(key).not.toContain(SANDBOX_CREDENTIALS.consumerKey);
      const first = sharingClient(new RedisTokenStore(redis), key);
      const second = sharingClient(new RedisTokenStore(redis), key);
      // Both cold at once: the Redis lock lets one of them log in.
      await bothCold(first, second);
      expect(await tokenRequests()).toBe(1);
      expect(await redis.pttl(key)).toBeGreaterThan(0);
    } finally {
      redis.disconnect();
      await server.stop();
    }
  });

  it('shares one token between two clients (two processes) through the PostgreSQL store', async () => {
    const dataSource = await openTestDataSource();
    try {
      const key = tokenStoreKey(
        `test:${randomUUID()}`,
        sandbox.baseUrl,
        SANDBOX_CREDENTIALS.consumerKey,
      );
      const first = sharingClient(new PostgresTokenStore(dataSource), key);
      const second = sharingClient(new PostgresTokenStore(dataSource), key);
      // Both cold at once: the lease on the row lets one of them log in.
      await bothCold(first, second);
      expect(await tokenRequests()).toBe(1);
      const [row] = (await dataSource.query(
        'SELECT token, expires_at, lock_owner FROM gateway_tokens WHERE key = $1',
        [key],
      )) as { token: string | null; expires_at: Date; lock_owner: string | null }[];
      expect(row.token).toEqual(expect.any(String));
      expect(new Date(row.expires_at).getTime()).toBeGreaterThan(Date.now());
      // The refresh lock was given back once the token was stored.
      expect(row.lock_owner).toBeNull();
      // A third process starting later reuses the stored token.
      const third = sharingClient(new PostgresTokenStore(dataSource), key);
      await third.listIpns();
      expect(await tokenRequests()).toBe(1);
    } finally {
      await dataSource.destroy();
    }
  });

  it('falls back to its own memory when Redis is absent or unreachable', async () => {
    const unreachable = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    unreachable.on('error', () => undefined);
    try {
      for (const store of [new RedisTokenStore(null), new RedisTokenStore(unreachable)]) {
        await sandbox.control.resetRequests();
        const client = clientFor(sandbox, { tokenStore: store });
        await Promise.all(Array.from({ length: 5 }, () => client.listIpns()));
        await client.listIpns();
        expect(await tokenRequests()).toBe(1);
      }
    } finally {
      unreachable.disconnect();
    }
  });
});
