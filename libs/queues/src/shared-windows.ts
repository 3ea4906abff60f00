import { DataSource } from 'typeorm';
import { RedisClient, RedisConnection } from './redis-client';

const MINUTE_MS = 60_000;

/**
 * One fixed window per key: INCRBY the hits taken (one, or a lease of several), and the window's
 * expiry set by its first hits. Answers the hits so far and the milliseconds left in the window.
 * A command of the client: ioredis sends the script once per connection (EVAL), then its SHA-1
 * (EVALSHA), and the script again when Redis has lost it (a restart, a node of a cluster).
 */
const REDIS_WINDOW = `
local hits = redis.call('INCRBY', KEYS[1], ARGV[2])
if hits == tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); left = tonumber(ARGV[1]) end
return {hits, left}`;

/** The Redis client with the window's script as a command of its own. */
type WindowCounting = RedisClient & {
  rateWindow(key: string, ttlMs: number, hits: number): Promise<[number, number]>;
};

/** The same window in the service's database, for QUEUE_BACKEND=postgres (no Redis). */
const POSTGRES_WINDOW = `
  INSERT INTO rate_limit_windows (key, hits, window_ends)
  VALUES ($1, $3::int, clock_timestamp() + make_interval(secs => $2::float8 / 1000))
  ON CONFLICT (key) DO UPDATE
     SET hits = CASE WHEN rate_limit_windows.window_ends <= clock_timestamp() THEN $3::int
                     ELSE rate_limit_windows.hits + $3::int END,
         window_ends = CASE WHEN rate_limit_windows.window_ends <= clock_timestamp()
                            THEN EXCLUDED.window_ends ELSE rate_limit_windows.window_ends END
  RETURNING hits, GREATEST(0, EXTRACT(EPOCH FROM window_ends - clock_timestamp()) * 1000)::float8 AS left_ms`;

/** A lease is at most this share of what a window has left (1/16)... */
const LEASE_SHARE = 16;
/** ...and at most this many hits. */
const LEASE_MAX = 100;
/** Keys whose lease this process keeps at once (random keys each get a window). */
const LEASES_KEPT_MAX = 10_000;

/** Hits a process took from a shared window ahead of its requests: numbers firstHit… */
interface Lease {
  endsAt: number;
  firstHit: number;
  granted: number;
  used: number;
}

/** Adds `hits` to the key's shared window; answers its hits so far and the ms it has left. */
export type CountHits = (key: string, ttlMs: number, hits: number) => Promise<[number, number]>;

/**
 * Takes a window's hits from the shared store a lease at a time, so that a key far below its
 * limit costs the store one round trip per lease rather than per request. A lease is at most a
 * sixteenth of what the window had left when it was taken (and at most 100), so replicas holding
 * leases together take little of a window's rest; with fewer than 32 left (and past the limit)
 * each hit goes to the store as it comes, exactly, side by side with the others. A key's first request in a window takes one hit (nothing is
 * known of it yet). Each request gets its own hit number, so the limit holds per hit: a lease
 * that ran past the limit (other replicas took the rest) refuses its hits beyond it. Hits leased
 * and never used count against the window: a limit errs towards refusing, never beyond it.
 */
export class RateLeases {
  private readonly leases = new Map<string, Lease>();
  private readonly taking = new Map<string, Promise<Lease>>();
  private nextSweepAt = 0;

  constructor(private readonly count: CountHits) {}

  /** The request's hit number in the key's window, and the ms the window has left. */
  async hit(key: string, ttlMs: number, limit: number): Promise<[number, number]> {
    for (;;) {
      const now = Date.now();
      this.sweep(now);
      const lease = this.leases.get(key);
      if (lease && usable(lease, now)) return take(lease, now);
      const known = lease && lease.endsAt > now ? lease.firstHit + lease.granted - 1 : null;
      const size =
        known === null
          ? 1
          : Math.max(1, Math.min(LEASE_MAX, Math.floor((limit - known) / LEASE_SHARE)));
      // A single hit (a key's first in its window, or one near or past its limit) is counted at
      // once, beside any other: only a lease of several, which serves the requests behind it,
      // is waited for.
      if (size === 1) {
        const single = await this.lease(key, ttlMs, 1);
        this.keep(key, single);
        return take(single, Date.now());
      }
      const taking = this.taking.get(key);
      if (taking) {
        await taking;
        continue;
      }
      const next = this.lease(key, ttlMs, size);
      this.taking.set(key, next);
      try {
        const fresh = await next;
        this.keep(key, fresh);
        return take(fresh, Date.now());
      } finally {
        this.taking.delete(key);
      }
    }
  }

  /** Remembers a key's newest lease, unless one with hits still to use is there. */
  private keep(key: string, fresh: Lease): void {
    const current = this.leases.get(key);
    if (current && usable(current, Date.now())) return;
    if (current || this.leases.size < LEASES_KEPT_MAX) this.leases.set(key, fresh);
  }

  private async lease(key: string, ttlMs: number, size: number): Promise<Lease> {
    const [total, leftMs] = await this.count(key, ttlMs, size);
    return { endsAt: Date.now() + leftMs, firstHit: total - size + 1, granted: size, used: 0 };
  }

  private sweep(now: number): void {
    if (now < this.nextSweepAt) return;
    for (const [key, lease] of this.leases) if (lease.endsAt <= now) this.leases.delete(key);
    this.nextSweepAt = now + MINUTE_MS;
  }
}

function usable(lease: Lease, now: number): boolean {
  return lease.endsAt > now && lease.used < lease.granted;
}

function take(lease: Lease, now: number): [number, number] {
  lease.used += 1;
  return [lease.firstHit + lease.used - 1, Math.max(0, lease.endsAt - now)];
}

/**
 * Fixed windows of hits shared by every process: in Redis, or in PostgreSQL
 * (rate_limit_windows) on the Postgres queue backend, taken a lease at a time (RateLeases). The
 * api's rate limits count requests in them, the worker its gateway lookups.
 */
export class SharedWindows {
  private readonly leases = new RateLeases((key, ttlMs, hits) => this.take(key, ttlMs, hits));
  private readonly redis: WindowCounting | null;

  constructor(
    redis: RedisConnection,
    private readonly dataSource: DataSource,
  ) {
    redis.client?.defineCommand('rateWindow', { numberOfKeys: 1, lua: REDIS_WINDOW });
    this.redis = redis.client as WindowCounting | null;
  }

  /** This hit's number in the key's window, and the ms the window has left (throws when the store does not answer). */
  hit(key: string, ttlMs: number, limit: number): Promise<[number, number]> {
    return this.leases.hit(key, ttlMs, limit);
  }

  /** Adds `hits` to the key's window at once (no lease): its hits so far and the ms it has left. */
  async take(key: string, ttlMs: number, hits: number): Promise<[number, number]> {
    if (this.redis) return this.redis.rateWindow(key, ttlMs, hits);
    const [row] = (await this.dataSource.query(POSTGRES_WINDOW, [key, ttlMs, hits])) as {
      hits: number;
      left_ms: number;
    }[];
    return [row.hits, row.left_ms];
  }
}
