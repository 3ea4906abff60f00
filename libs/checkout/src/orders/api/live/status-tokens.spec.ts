import { createHmac } from 'node:crypto';
import { StatusTokens } from './status-tokens';

describe('StatusTokens', () => {
  const tokens = new StatusTokens({ statusTokenSecret: 'a-secret-of-thirty-two-characters!!' });

  it('gives each reference its own token, the same every time', () => {
    const token = tokens.issue('ORDER-1');
    expect(token).toMatch(/^pst_[A-Za-z0-9_-]{43}$/);
    expect(tokens.issue('ORDER-1')).toBe(token);
    expect(tokens.issue('ORDER-2')).not.toBe(token);
  });

  it('is the HMAC-SHA256 of the reference under the secret, so every release answers the same token', () => {
    const mac = createHmac('sha256', 'a-secret-of-thirty-two-characters!!')
      .update('order-status\nORDER-1')
      .digest('base64url');
    expect(tokens.issue('ORDER-1')).toBe(`pst_${mac}`);
  });

  it("accepts an order's own token and refuses another order's, a changed one and other shapes", () => {
    const token = tokens.issue('ORDER-1');
    expect(tokens.verify('ORDER-1', token)).toBe(true);
    expect(tokens.verify('ORDER-2', token)).toBe(false);
    // Every other last character, those that decode to the same bytes included.
    for (const last of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_') {
      if (last === token.at(-1)) continue;
      expect(tokens.verify('ORDER-1', `${token.slice(0, -1)}${last}`)).toBe(false);
    }
    expect(tokens.verify('ORDER-1', `${token.slice(0, 10)}x${token.slice(11)}`)).toBe(false);
    expect(tokens.verify('ORDER-1', token.slice(4))).toBe(false);
    expect(tokens.verify('ORDER-1', `${token}AA`)).toBe(false);
    expect(tokens.verify('ORDER-1', '')).toBe(false);
  });

  it('depends on the secret: another secret refuses the tokens of the first', () => {
    const other = new StatusTokens({ statusTokenSecret: 'another-secret-of-32-characters!!!' });
    expect(other.verify('ORDER-1', tokens.issue('ORDER-1'))).toBe(false);
  });
});
