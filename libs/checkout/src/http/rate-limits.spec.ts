import { Controller, Post } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { SkipThrottle, Throttle, ThrottlerException, ThrottlerStorage } from '@nestjs/throttler';
import { CountHits, RateLeases } from '@app/queues';
import { CheckoutRateGuard, SourceAddressCeiling } from './rate-limits';

describe('CheckoutRateGuard', () => {
  @Controller('v1/things')
  class Things {
    @Post()
    plain(): void {}

    @Post('few')
    @Throttle({ default: { limit: 2, ttl: 1_000 } })
    few(): void {}

    @Post('free')
    @SkipThrottle()
    free(): void {}
  }

  /** The guard over a store counting per key, and what it set on each answer. */
  async function guarded() {
    const hits = new Map<string, number>();
    const storage: ThrottlerStorage = {
      increment: async (key, ttl, limit) => {
        const total = (hits.get(key) ?? 0) + 1;
        hits.set(key, total);
        const blocked = total > limit;
        return {
          totalHits: total,
          timeToExpire: ttl / 1000,
          isBlocked: blocked,
          timeToBlockExpire: blocked ? ttl / 1000 : 0,
        };
      },
    };
    const guard = new CheckoutRateGuard(
      { throttlers: [{ name: 'default', ttl: 60_000, limit: () => 3 }] },
      storage,
      new Reflector(),
    );
    await guard.onModuleInit();
    const request = async (method: keyof Things, url = '/v1/things') => {
      const headers: Record<string, unknown> = {};
      const reply = { header: (name: string, value: unknown) => (headers[name] = value) };
      const context = new ExecutionContextHost(
        [{ url, ip: '10.0.0.1', headers: { authorization: 'Bearer shop-key' } }, reply],
        Things,
        Things.prototype[method],
      );
      const allowed = await guard.canActivate(context).catch((error: unknown) => error);
      return { allowed, headers };
    };
    return { request, hits };
  }

  it("counts each route under the throttler's limit, and refuses past it with Retry-After", async () => {
    const { request } = await guarded();
    const first = await request('plain');
    expect(first.allowed).toBe(true);
    expect(first.headers).toMatchObject({ 'X-RateLimit-Limit': 3, 'X-RateLimit-Remaining': 2 });
    for (let i = 0; i < 2; i += 1) expect((await request('plain')).allowed).toBe(true);
    const refused = await request('plain');
    expect(refused.allowed).toBeInstanceOf(ThrottlerException);
    expect(refused.headers).toMatchObject({ 'Retry-After': 60 });
  });

  it("honours a route's @Throttle and @SkipThrottle, read once for all its requests", async () => {
    const { request, hits } = await guarded();
    const reads = jest.spyOn(Reflector.prototype, 'getAllAndOverride');
    try {
      expect((await request('few')).allowed).toBe(true);
      expect((await request('few')).headers).toMatchObject({ 'X-RateLimit-Limit': 2 });
      expect((await request('few')).allowed).toBeInstanceOf(ThrottlerException);
      for (let i = 0; i < 5; i += 1) expect((await request('free')).allowed).toBe(true);
      // Six settings of one throttler, for each of the two routes: none read again.
      expect(reads).toHaveBeenCalledTimes(12);
    } finally {
      reads.mockRestore();
    }
    expect([...hits.values()]).toEqual([3]);
  });

  it('leaves health and metrics uncounted', async () => {
    const { request, hits } = await guarded();
    expect((await request('plain', '/health/live')).allowed).toBe(true);
    expect((await request('plain', '/metrics')).allowed).toBe(true);
    expect(hits.size).toBe(0);
  });
});

describe('SourceAddressCeiling', () => {
  it('lets an address make its minute’s worth, then asks it to wait until the window ends', () => {
    const ceiling = new SourceAddressCeiling(2);
    const start = 1_000_000;
    expect(ceiling.retryAfter('10.0.0.1', start)).toBeNull();
    expect(ceiling.retryAfter('10.0.0.1', start + 1)).toBeNull();
    expect(ceiling.retryAfter('10.0.0.1', start + 20_000)).toBe(40);
    // Another address has its own window; a new minute starts afresh.
    expect(ceiling.retryAfter('10.0.0.2', start + 20_000)).toBeNull();
    expect(ceiling.retryAfter('10.0.0.1', start + 60_000)).toBeNull();
  });

  it('is off at 0', () => {
    const ceiling = new SourceAddressCeiling(0);
    for (let i = 0; i < 5; i += 1) expect(ceiling.retryAfter('10.0.0.1')).toBeNull();
  });
});

/** A shared window as the stores keep it (INCRBY, one window), counting the round trips. */
function sharedWindow() {
  const store = { total: 0, calls: 0, inFlight: 0, mostInFlight: 0 };
  const count: CountHits = async (_key, ttlMs, hits) => {
    store.calls += 1;
    store.inFlight += 1;
    store.mostInFlight = Math.max(store.mostInFlight, store.inFlight);
    await new Promise((resolve) => setImmediate(resolve));
    store.inFlight -= 1;
    store.total += hits;
    return [store.total, ttlMs];
  };
  return { store, count };
}

describe('RateLeases', () => {
  it('far below the limit, asks the store once per lease; every request has its own hit number', async () => {
    const { store, count } = sharedWindow();
    const leases = new RateLeases(count);
    const numbers: number[] = [];
    for (let i = 0; i < 1000; i += 1) numbers.push((await leases.hit('k', 60_000, 60_000))[0]);
    expect(numbers).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    // The first hit alone (nothing known of the key), then leases of 100.
    expect(store.calls).toBe(11);
  });

  it('near the limit counts each hit in the store, and refuses exactly past it', async () => {
    const { store, count } = sharedWindow();
    const leases = new RateLeases(count);
    const numbers: number[] = [];
    for (let i = 0; i < 25; i += 1) numbers.push((await leases.hit('k', 60_000, 20))[0]);
    expect(numbers.filter((n) => n <= 20)).toHaveLength(20);
    expect(numbers.slice(20).every((n) => n > 20)).toBe(true);
    expect(store.calls).toBe(25);
  });

  it('replicas sharing a window let exactly the limit through between them', async () => {
    const { store, count } = sharedWindow();
    const replicas = [new RateLeases(count), new RateLeases(count)];
    const allowed = [0, 0];
    const refused = [0, 0];
    for (let i = 0; refused[0] < 3 || refused[1] < 3; i += 1) {
      const [hit] = await replicas[i % 2].hit('k', 60_000, 500);
      if (hit <= 500) allowed[i % 2] += 1;
      else refused[i % 2] += 1;
    }
    expect(allowed[0] + allowed[1]).toBe(500);
    expect(store.calls).toBeLessThan(150);
  });

  it('concurrent requests wait for one lease instead of each asking the store', async () => {
    const { store, count } = sharedWindow();
    const leases = new RateLeases(count);
    await leases.hit('k', 60_000, 60_000);
    const numbers = await Promise.all(
      Array.from({ length: 50 }, () => leases.hit('k', 60_000, 60_000).then(([n]) => n)),
    );
    expect(new Set(numbers).size).toBe(50);
    expect(Math.max(...numbers)).toBe(51);
    expect(store.calls).toBe(2);
  });

  it('near or past the limit, counts concurrent requests side by side (none waits for another)', async () => {
    const { store, count } = sharedWindow();
    const leases = new RateLeases(count);
    for (let i = 0; i < 15; i += 1) await leases.hit('k', 60_000, 20);
    store.mostInFlight = 0;
    const numbers = await Promise.all(
      Array.from({ length: 10 }, () => leases.hit('k', 60_000, 20).then(([n]) => n)),
    );
    expect(numbers.sort((a, b) => a - b)).toEqual([16, 17, 18, 19, 20, 21, 22, 23, 24, 25]);
    expect(store.mostInFlight).toBe(10);
  });

  it('starts a key afresh when its window has ended', async () => {
    let total = 0;
    let calls = 0;
    const leases = new RateLeases(async (_key, _ttl, hits) => {
      calls += 1;
      total += hits;
      // A window that ends at once: each lease is void before it is used again.
      return [total, 0];
    });
    await leases.hit('k', 60_000, 60_000);
    await leases.hit('k', 60_000, 60_000);
    expect(calls).toBe(2);
    expect(total).toBe(2);
  });
});
