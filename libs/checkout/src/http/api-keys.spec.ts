import { ApiKeyRing, bearerKey } from './api-keys';

describe('API keys', () => {
  const ring = new ApiKeyRing(['shop:short-key-1', 'a-much-longer-unnamed-key-of-the-shop']);

  it('identifies each configured key by its name (or fingerprint), and nothing else', () => {
    expect(ring.identify('short-key-1')?.name).toBe('shop');
    expect(ring.identify('a-much-longer-unnamed-key-of-the-shop')?.name).toMatch(
      /^key-[0-9a-f]{8}$/,
    );
    expect(ring.identify('short-key-2')).toBeUndefined();
    expect(ring.identify('')).toBeUndefined();
  });

  it('compares in constant time: the same comparisons, of the same size, whatever is presented', () => {
    // The module object itself (an `import * as` would be a copy the code under test never calls).
    const crypto = jest.requireActual<typeof import('node:crypto')>('node:crypto');
    const compare = jest.spyOn(crypto, 'timingSafeEqual');
    try {
      for (const presented of ['x', 'short-key-1', 'short-key-0', 'a'.repeat(500)]) {
        compare.mockClear();
        ring.identify(presented);
        // Every entry is compared (no exit at a match or a length), as 32-byte digests.
        expect(compare).toHaveBeenCalledTimes(2);
        for (const [a, b] of compare.mock.calls) {
          expect([(a as Buffer).length, (b as Buffer).length]).toEqual([32, 32]);
        }
      }
    } finally {
      compare.mockRestore();
    }
  });

  it('reads only a Bearer authorization', () => {
    expect(bearerKey('Bearer abc')).toBe('abc');
    expect(bearerKey('bearer abc ')).toBe('abc');
    expect(bearerKey('Basic abc')).toBeUndefined();
    expect(bearerKey(['Bearer abc'])).toBeUndefined();
  });
});
