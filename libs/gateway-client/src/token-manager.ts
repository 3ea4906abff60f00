import { StoredToken, TokenStore } from './token-store';

export interface TokenManagerOptions {
  store: TokenStore;
  key: string;
  /** Asks the gateway for a new token. */
  issue: () => Promise<StoredToken>;
  /** Refresh this long before exp (default one minute), capped at half the token's lifetime. */
  refreshMarginMs: number;
  /** How long to wait for another process's refresh before fetching ourselves. */
  lockWaitMs: number;
  pollIntervalMs?: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One token per credential set: reused until shortly before its JWT exp, refreshed by a single
 * call however many callers are waiting, and shared across processes through the store.
 */
export class TokenManager {
  private current: StoredToken | null = null;
  private inFlight: Promise<StoredToken> | null = null;

  constructor(private readonly options: TokenManagerOptions) {}

  /**
   * A usable token. `rejected` is a token the gateway just refused (expired or revoked early):
   * it is never handed out again, which forces one refresh shared by everyone who saw it fail.
   */
  async getToken(rejected?: string): Promise<string> {
    if (this.current && this.usable(this.current, rejected)) return this.current.token;
    this.inFlight ??= this.refresh(rejected).finally(() => {
      this.inFlight = null;
    });
    return (await this.inFlight).token;
  }

  private async refresh(rejected: string | undefined): Promise<StoredToken> {
    const { store, key, lockWaitMs } = this.options;
    const shared = await store.get(key);
    if (shared && this.usable(shared, rejected)) return (this.current = shared);
    const locked = await store.tryLock(key, lockWaitMs);
    if (!locked) {
      const fromPeer = await this.awaitPeer(rejected);
      if (fromPeer) return (this.current = fromPeer);
    }
    try {
      if (locked) {
        // A peer may have logged in, stored its token and given the lock back between the read
        // above and this lock: read again before logging in a second time.
        const stored = await store.get(key);
        if (stored && this.usable(stored, rejected)) return (this.current = stored);
      }
      const issued = await this.options.issue();
      this.current = issued;
      await store.set(key, issued);
      return issued;
    } finally {
      await store.unlock(key);
    }
  }

  /** Another process holds the refresh lock: wait for its token to appear in the store. */
  private async awaitPeer(rejected: string | undefined): Promise<StoredToken | null> {
    const deadline = Date.now() + this.options.lockWaitMs;
    while (Date.now() < deadline) {
      await sleep(this.options.pollIntervalMs ?? 50);
      const shared = await this.options.store.get(this.options.key);
      if (shared && this.usable(shared, rejected)) return shared;
    }
    return null;
  }

  private usable(token: StoredToken, rejected: string | undefined): boolean {
    if (token.token === rejected) return false;
    const lifetime = token.issuedAt === null ? Infinity : token.expiresAt - token.issuedAt;
    const margin = Math.min(this.options.refreshMarginMs, lifetime / 2);
    return Date.now() < token.expiresAt - margin;
  }
}
