import { cutText } from './bounded-text';

describe('cutText', () => {
  it('keeps a text within the bound and cuts a longer one there', () => {
    expect(cutText('refund accepted', 50)).toBe('refund accepted');
    expect(cutText('abcdef', 3)).toBe('abc');
    expect(cutText(null, 3)).toBeNull();
    expect(cutText(undefined, 3)).toBeNull();
  });

  it('counts characters as the database does, and never cuts one in half', () => {
    // Four characters, eight UTF-16 units: within a bound of four.
    expect(cutText('😀😀😀😀', 4)).toBe('😀😀😀😀');
    expect(cutText('😀😀😀😀', 3)).toBe('😀😀😀');
    expect(cutText('a😀b', 2)).toBe('a😀');
  });
});
