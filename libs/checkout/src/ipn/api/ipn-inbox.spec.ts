import { inboxWriters } from './ipn-inbox';

describe('inboxWriters', () => {
  const writers = (ipnStoreWriters: number, api: number) =>
    inboxWriters({ ipnStoreWriters, databasePoolSize: { api, worker: 4 } });

  it('is IPN_STORE_WRITERS while the pool has twice as many connections', () => {
    expect(writers(8, 20)).toBe(8);
    expect(writers(8, 16)).toBe(8);
    expect(writers(2, 20)).toBe(2);
  });

  it('never takes more than half the api pool, and at least one statement', () => {
    expect(writers(8, 10)).toBe(5);
    expect(writers(8, 4)).toBe(2);
    expect(writers(8, 1)).toBe(1);
  });
});
