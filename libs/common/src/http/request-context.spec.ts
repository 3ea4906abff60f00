import { AsyncLocalStorage } from 'node:async_hooks';
import { holdRequestContext, requestContextHolds, requestContextStorage } from './request-context';

/** Node's own switch of the storage: while it is on, every new promise of the process pays a hook. */
const enabled = (storage: AsyncLocalStorage<unknown>): boolean =>
  (storage as unknown as { enabled: boolean }).enabled;

describe('request context storages', () => {
  it('stay enabled while anything holds them and are disabled when the last hold is released', async () => {
    const storage = requestContextStorage<string>();
    const first = holdRequestContext();
    const second = holdRequestContext();
    const seen = await storage.run('act', async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return storage.getStore();
    });
    expect(seen).toBe('act');
    first();
    first(); // a second release of the same hold changes nothing
    expect(enabled(storage)).toBe(true);
    expect(requestContextHolds()).toBe(1);
    second();
    expect(requestContextHolds()).toBe(0);
    expect(enabled(storage)).toBe(false);
    // The next use enables it again.
    const release = holdRequestContext();
    expect(storage.run('again', () => storage.getStore())).toBe('again');
    expect(enabled(storage)).toBe(true);
    release();
    expect(enabled(storage)).toBe(false);
  });
});
