import { TokenManager } from './token-manager';
import { InMemoryTokenStore, StoredToken, tokenStoreKey } from './token-store';

function managerIssuing(lifetimeMs: number, refreshMarginMs = 60_000) {
  let issued = 0;
  const manager = new TokenManager({
    store: new InMemoryTokenStore(),
    key: 'k',
    refreshMarginMs,
    lockWaitMs: 1000,
    issue: async (): Promise<StoredToken> => {
      issued++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      const now = Date.now();
      return { token: `token-${issued}`, issuedAt: now, expiresAt: now + lifetimeMs };
    },
  });
  return { manager, issued: () => issued };
}

describe('TokenManager', () => {
  it('shares one refresh among concurrent callers and reuses the token', async () => {
    const { manager, issued } = managerIssuing(3_600_000);
    const tokens = await Promise.all(Array.from({ length: 50 }, () => manager.getToken()));
    expect(new Set(tokens)).toEqual(new Set(['token-1']));
    expect(await manager.getToken()).toBe('token-1');
    expect(issued()).toBe(1);
  });

  it('reuses a stored token until one minute before its exp, then refreshes', async () => {
    const hour = 3_600_000;
    const stored = (expiresInMs: number): StoredToken => ({
      token: `stored-${expiresInMs}`,
      issuedAt: Date.now() + expiresInMs - hour,
      expiresAt: Date.now() + expiresInMs,
    });
    const store = new InMemoryTokenStore();
    let issued = 0;
    const managerFor = (key: string) =>
      new TokenManager({
        store,
        key,
        refreshMarginMs: 60_000,
        lockWaitMs: 1000,
        issue: async () => ({
          token: `fresh-${++issued}`,
          issuedAt: Date.now(),
          expiresAt: Date.now() + hour,
        }),
      });
    const manager = managerFor('k');
    await store.set('k', stored(90_000));
    expect(await manager.getToken()).toBe('stored-90000');
    const nearExpiry = managerFor('k2');
    await store.set('k2', stored(30_000));
    expect(await nearExpiry.getToken()).toBe('fresh-1');
    expect((await store.get('k2'))?.token).toBe('fresh-1');
  });

  it('never hands out a token the gateway refused, and replaces it once for everyone', async () => {
    const { manager, issued } = managerIssuing(3_600_000);
    const refused = await manager.getToken();
    const replacements = await Promise.all(
      Array.from({ length: 10 }, () => manager.getToken(refused)),
    );
    expect(new Set(replacements)).toEqual(new Set(['token-2']));
    expect(issued()).toBe(2);
  });

  it("takes a peer's token stored between its read and its lock, without logging in", async () => {
    const store = new InMemoryTokenStore();
    const peerToken: StoredToken = {
      token: 'peer-token',
      issuedAt: Date.now(),
      expiresAt: Date.now() + 3_600_000,
    };
    // The peer logs in, stores its token and gives the lock back while this process is between
    // its read of the store (empty) and its lock (free again).
    jest.spyOn(store, 'tryLock').mockImplementation(async () => {
      await store.set('k', peerToken);
      return true;
    });
    const issue = jest.fn(async (): Promise<StoredToken> => {
      throw new Error('logged in a second time');
    });
    const manager = new TokenManager({
      store,
      key: 'k',
      refreshMarginMs: 60_000,
      lockWaitMs: 1000,
      issue,
    });
    expect(await manager.getToken()).toBe('peer-token');
    expect(issue).not.toHaveBeenCalled();
  });

  it('keys the store by a hash, never by the consumer key in clear', () => {
    const key = tokenStoreKey('pesapal', 'https://pay.example/v3/api', 'my-consumer-key');
    expect(key).toMatch(/^pesapal:gateway-token:[0-9a-f]{24}$/);
    expect(tokenStoreKey('pesapal', 'https://other.example/v3/api', 'my-consumer-key')).not.toBe(
      key,
    );
  });
});
