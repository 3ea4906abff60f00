import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { InMemoryTokenStore, StoredToken, TokenStore } from '@app/gateway-client';

interface WarnLogger {
  warn(message: unknown): void;
}

interface TokenRow {
  token: string;
  expires_at: Date;
  issued_at: Date | null;
}

/**
 * The gateway token shared by every process through PostgreSQL (gateway_tokens), for a service
 * whose queues run there and so has no Redis. The refresh lock is a lease on the same row: one
 * process logs in, the others wait for its token. While the database cannot be reached each
 * process keeps its own token rather than failing payments, as the Redis store does.
 */
export class PostgresTokenStore implements TokenStore {
  private readonly fallback = new InMemoryTokenStore();
  private readonly lockOwners = new Map<string, string>();
  private degraded = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly logger?: WarnLogger,
  ) {}

  async get(key: string): Promise<StoredToken | null> {
    const shared = await this.attempt(async () => {
      const rows = (await this.dataSource.query(
        `SELECT token, expires_at, issued_at FROM gateway_tokens
          WHERE key = $1 AND token IS NOT NULL AND expires_at > now()`,
        [key],
      )) as TokenRow[];
      const row = rows[0];
      return row
        ? {
            token: row.token,
            expiresAt: new Date(row.expires_at).getTime(),
            issuedAt: row.issued_at ? new Date(row.issued_at).getTime() : null,
          }
        : null;
    });
    return shared === undefined ? this.fallback.get(key) : shared;
  }

  async set(key: string, token: StoredToken): Promise<void> {
    await this.fallback.set(key, token);
    if (token.expiresAt <= Date.now()) return;
    await this.attempt(() =>
      this.dataSource.query(
        `INSERT INTO gateway_tokens (key, token, expires_at, issued_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (key) DO UPDATE
           SET token = EXCLUDED.token, expires_at = EXCLUDED.expires_at,
               issued_at = EXCLUDED.issued_at`,
        [
          key,
          token.token,
          new Date(token.expiresAt),
          token.issuedAt === null ? null : new Date(token.issuedAt),
        ],
      ),
    );
  }

  async tryLock(key: string, ttlMs: number): Promise<boolean> {
    const owner = randomUUID();
    const rows = await this.attempt(
      () =>
        this.dataSource.query(
          `INSERT INTO gateway_tokens (key, lock_owner, locked_until)
           VALUES ($1, $2, now() + make_interval(secs => $3::double precision))
           ON CONFLICT (key) DO UPDATE
             SET lock_owner = EXCLUDED.lock_owner, locked_until = EXCLUDED.locked_until
             WHERE gateway_tokens.locked_until IS NULL OR gateway_tokens.locked_until <= now()
           RETURNING lock_owner`,
          [key, owner, ttlMs / 1000],
        ) as Promise<unknown[]>,
    );
    if (rows === undefined) return true;
    if (rows.length > 0) this.lockOwners.set(key, owner);
    return rows.length > 0;
  }

  async unlock(key: string): Promise<void> {
    const owner = this.lockOwners.get(key);
    if (!owner) return;
    this.lockOwners.delete(key);
    await this.attempt(() =>
      this.dataSource.query(
        `UPDATE gateway_tokens SET lock_owner = NULL, locked_until = NULL
          WHERE key = $1 AND lock_owner = $2`,
        [key, owner],
      ),
    );
  }

  /** undefined when the database failed: the caller falls back to this process's memory. */
  private async attempt<T>(command: () => Promise<T>): Promise<T | undefined> {
    try {
      const result = await command();
      this.degraded = false;
      return result;
    } catch (error) {
      if (!this.degraded) {
        this.logger?.warn({
          msg: 'gateway token store: PostgreSQL unavailable, using this process only',
          error: (error as Error).message,
        });
      }
      this.degraded = true;
      return undefined;
    }
  }
}
