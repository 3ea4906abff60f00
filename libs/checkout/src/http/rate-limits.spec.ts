import { SourceAddressCeiling } from './rate-limits';

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
