import { createHash, randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

/** One Redis server or a cluster: the store's commands each touch one key. */
type SharedRedis = Redis | Cluster;

/** A bearer token and when it stops being valid (ms since epoch, from the JWT). */
export interface StoredToken {
  token: string;
  expiresAt: number;
  issuedAt: number | null;
}

/**
 * Where tokens live between calls. The Redis store lets every process of the service share one
 * token per credential set, so N replicas do not each log in.
 */
export interface TokenStore {
  get(key: string): Promise<StoredToken | null>;
  set(key: string, token: StoredToken): Promise<void>;
  /** Cross-process refresh lock: true when this caller should fetch the token itself. */
  tryLock(key: string, ttlMs: number): Promise<boolean>;
  unlock(key: string): Promise<void>;
}

/**
 * The store key: namespaced by the deployment prefix and a hash of gateway address and consumer
 * key. The secret never takes part, so the key reveals nothing.
 */
export function tokenStoreKey(prefix: string, baseUrl: string, consumerKey: string): string {
  const digest = createHash('sha256').update(`${baseUrl}\n${consumerKey}`).digest('hex');
  return `${prefix}:gateway-token:${digest.slice(0, 24)}`;
}

export class InMemoryTokenStore implements TokenStore {
  private readonly tokens = new Map<string, StoredToken>();

  async get(key: string): Promise<StoredToken | null> {
    const token = this.tokens.get(key);
    if (token && token.expiresAt <= Date.now()) this.tokens.delete(key);
    return this.tokens.get(key) ?? null;
  }

  async set(key: string, token: StoredToken): Promise<void> {
    this.tokens.set(key, token);
  }

  // One process: the client's own single-flight is the only coordination needed.
  async tryLock(): Promise<boolean> {
    return true;
  }

  async unlock(): Promise<void> {}
}

interface WarnLogger {
  warn(message: unknown): void;
}

const RELEASE_IF_OWNER =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

/**
 * Tokens in Redis with an in-memory fallback: when Redis is absent (queues on Postgres) or down,
 * each process keeps its own token rather than failing payments.
 */
export class RedisTokenStore implements TokenStore {
  private readonly fallback = new InMemoryTokenStore();
  private readonly lockOwners = new Map<string, string>();
  private degraded = false;

  constructor(
    private readonly redis: SharedRedis | null,
    private readonly logger?: WarnLogger,
  ) {}

  async get(key: string): Promise<StoredToken | null> {
    const shared = await this.attempt(async (redis) => {
      const text = await redis.get(key);
      return text === null ? null : readStoredToken(text);
    });
    return shared === undefined ? this.fallback.get(key) : shared;
  }

  async set(key: string, token: StoredToken): Promise<void> {
    await this.fallback.set(key, token);
    const ttlMs = token.expiresAt - Date.now();
    if (ttlMs <= 0) return;
    await this.attempt((redis) => redis.set(key, JSON.stringify(token), 'PX', ttlMs));
  }

  async tryLock(key: string, ttlMs: number): Promise<boolean> {
    const owner = randomUUID();
    const answer = await this.attempt((redis) =>
      redis.set(`${key}:refresh-lock`, owner, 'PX', ttlMs, 'NX'),
    );
    if (answer === undefined) return true;
    if (answer === 'OK') this.lockOwners.set(key, owner);
    return answer === 'OK';
  }

  async unlock(key: string): Promise<void> {
    const owner = this.lockOwners.get(key);
    if (!owner) return;
    this.lockOwners.delete(key);
    await this.attempt((redis) => redis.eval(RELEASE_IF_OWNER, 1, `${key}:refresh-lock`, owner));
  }

  /** undefined when Redis is absent or failed: the caller falls back. */
  private async attempt<T>(command: (redis: SharedRedis) => Promise<T>): Promise<T | undefined> {
    if (!this.redis) return undefined;
    try {
      await readyOrGiveUp(this.redis);
      const result = await command(this.redis);
      this.degraded = false;
      return result;
    } catch (error) {
      if (!this.degraded) {
        this.logger?.warn({
          msg: 'gateway token store: Redis unavailable, using this process only',
          error: (error as Error).message,
        });
      }
      this.degraded = true;
      return undefined;
    }
  }
}

const READY_WAIT_MS = 1000;

/**
 * The connection refuses commands until ready (no offline queue); a call right after start
 * waits briefly for it instead of logging in on its own.
 */
async function readyOrGiveUp(redis: SharedRedis): Promise<void> {
  if (
    redis.status === 'ready' ||
    !['connecting', 'connect', 'reconnecting'].includes(redis.status)
  ) {
    return;
  }
  await new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, READY_WAIT_MS);
    redis.once('ready', done);
  });
}

function readStoredToken(text: string): StoredToken | null {
  try {
    const value = JSON.parse(text) as Partial<StoredToken>;
    if (typeof value.token !== 'string' || typeof value.expiresAt !== 'number') return null;
    return {
      token: value.token,
      expiresAt: value.expiresAt,
      issuedAt: typeof value.issuedAt === 'number' ? value.issuedAt : null,
    };
  } catch {
    return null;
  }
}
