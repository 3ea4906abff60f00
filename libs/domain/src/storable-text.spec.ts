import { mayHoldUnstorableText, storableJson, storableText } from './storable-text';

describe('storableText', () => {
  it('replaces NUL and lone surrogates by U+FFFD and keeps surrogate pairs', () => {
    expect(storableText('a\u0000b')).toBe('a\uFFFDb');
    expect(storableText('x\uD800y')).toBe('x\uFFFDy');
    expect(storableText('\uDC00z')).toBe('\uFFFDz');
    expect(storableText('pay 😀')).toBe('pay 😀');
    expect(storableText('refund accepted')).toBe('refund accepted');
  });

  it('cuts to the column width after cleaning, never inside a character', () => {
    expect(storableText('\u0000bcdef', 3)).toBe('\uFFFDbc');
    expect(storableText('a😀b', 2)).toBe('a😀');
  });
});

describe('storableJson', () => {
  it('cleans every string and key, at any depth, and leaves other values as they are', () => {
    const value = JSON.parse(
      '{"k\\u0000":"\\ud800","list":[1,"\\udfff",{"deep":"a\\u0000"}],"ok":true,"n":null,"pair":"\\ud83d\\ude00"}',
    ) as unknown;
    expect(storableJson(value)).toEqual({
      'k\uFFFD': '\uFFFD',
      list: [1, '\uFFFD', { deep: 'a\uFFFD' }],
      ok: true,
      n: null,
      pair: '😀',
    });
  });

  it('replaces what nests deeper than the bound', () => {
    expect(storableJson({ a: { b: { c: 'x' } } }, 2)).toEqual({ a: { b: '[nested too deep]' } });
  });
});

describe('mayHoldUnstorableText', () => {
  it('tells JSON text that may hold what storableText changes from text that cannot', () => {
    expect(mayHoldUnstorableText(JSON.stringify({ a: 'x\uD800' }))).toBe(true);
    expect(mayHoldUnstorableText(JSON.stringify({ a: 'x\u0000' }))).toBe(true);
    expect(mayHoldUnstorableText('{"a":"\\uDC00"}')).toBe(true);
    // A pair JSON.stringify writes as it is; other escapes are storable.
    expect(mayHoldUnstorableText(JSON.stringify({ a: 'pay 😀', b: '\u0001\n"' }))).toBe(false);
  });
});
