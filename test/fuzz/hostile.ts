import fc from 'fast-check';

/**
 * Generators of what a hostile or broken client sends, for every part of a request: any Unicode
 * (astral planes, lone surrogates, NUL, combining and right-to-left marks), very long values,
 * wrong types, duplicated and missing keys, every content type and charset, broken encodings.
 */

/** Strings no well-behaved client sends, beside any code point at all. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\uD800',
    '\uDFFF',
    'x\uD83D',
    '\uDE00y',
    '😀'.repeat(50),
    '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
    'e\u0301\u0301\u0301',
    'Z\u0351\u0352\u0353\u0354\u0355\u0356\u0357',
    '\u202Egnp.exe\u202C',
    '\u200F\u200E\u061C',
    '\uFEFFbom',
    '\uFFFF\uFFFE',
    '%',
    '%00',
    '%zz',
    '..',
    '../../etc/passwd',
    '<script>alert(1)</script>',
    "' OR 1=1 --",
    '${jndi:ldap://x}',
    '{{7*7}}',
    '-1',
    '1e309',
    'NaN',
    '9'.repeat(60),
    'a'.repeat(5_000),
    'é'.repeat(70_000),
  ),
);

/** A JSON value of any type (what a field holds instead of what it should). */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(null, true, false, 0, -0, -1, 1e308, 2 ** 53 + 1, [], {}, [[[[]]]]),
);

/** Bytes of a string as UTF-8, percent-encoded: lone surrogates arrive as U+FFFD, NUL as %00. */
export function percentEncoded(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9_.~-]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

/** A path segment: encoded hostile text, or raw broken escapes. */
export const hostileSegment: fc.Arbitrary<string> = fc.oneof(
  hostileString.map((text) => percentEncoded(text.slice(0, 400)) || 'x'),
  fc.constantFrom('%', '%zz', '%C0%AF', '%FF%FE', '%E2%82', '..%2F..', ';x=1', 'a%00b'),
);

/** A query string: known and unknown keys, duplicated keys, broken escapes, very long. */
export function hostileQuery(knownKeys: readonly string[]): fc.Arbitrary<string> {
  const key = fc.oneof(
    fc.constantFrom(...knownKeys, 'x', '__proto__', 'constructor', ''),
    hostileString,
  );
  return fc.oneof(
    fc
      .array(fc.tuple(key, hostileString), { maxLength: 6 })
      .map((pairs) =>
        pairs
          .map(([k, v]) => `${percentEncoded(k.slice(0, 200))}=${percentEncoded(v.slice(0, 2000))}`)
          .join('&'),
      ),
    // The same key twice, a key without a value, raw junk.
    fc.constantFrom(...knownKeys, 'limit').map((k) => `${k}=1&${k}=2&${k}&${k}[]=3&${k}[x]=4`),
    fc.constantFrom('%', '&&&', '==', 'a=%zz', 'limit=%FF', `q=${'x'.repeat(10_000)}`),
  );
}

/** Header values a client may send (bytes 0x20-0x7E and Latin-1, since fetch refuses others). */
const headerText = fc.oneof(
  fc.string({ unit: 'binary-ascii', maxLength: 80 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
  fc.constantFrom('', ' ', 'é', 'x'.repeat(8_000), 'Bearer', 'Bearer ', 'Basic YTpi', '${x}'),
);

export const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json; charset=nonsense',
  'application/merge-patch+json',
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=utf-16le',
  'multipart/form-data',
  'multipart/form-data; boundary=----x',
  'application/xml',
  'text/xml; charset=utf-8',
  'text/plain',
  'text/plain; charset=utf-16',
  'application/octet-stream',
  '*/*',
  'json',
  ';;;',
];

export interface HostileHeaders {
  contentType: string | null;
  extra: Record<string, string>;
}

export const hostileHeaders: fc.Arbitrary<HostileHeaders> = fc.record({
  contentType: fc.oneof(fc.constant(null), fc.constantFrom(...CONTENT_TYPES), headerText),
  extra: fc.dictionary(
    fc.constantFrom(
      'idempotency-key',
      'x-request-id',
      'accept',
      'accept-encoding',
      'content-encoding',
      'x-forwarded-for',
      'traceparent',
      'cookie',
      'origin',
      'if-none-match',
    ),
    headerText,
    { maxKeys: 3 },
  ),
});

/** A body in any encoding: JSON (valid, broken, with duplicated keys, deep), form, multipart, XML, UTF-16, bytes. */
export function hostileBody(valid: () => Record<string, unknown>): fc.Arbitrary<Buffer | null> {
  const mutated = fc
    .tuple(
      fc.dictionary(
        hostileString.map((k) => k.slice(0, 40)),
        hostileValue,
        { maxKeys: 3 },
      ),
      fc.uniqueArray(fc.nat(12), { maxLength: 4 }),
      fc.boolean(),
    )
    .map(([extra, drop, replace]) => {
      const body = valid();
      const keys = Object.keys(body);
      for (const index of drop) delete body[keys[index % keys.length]];
      if (replace) {
        for (const [i, value] of Object.values(extra).entries())
          body[keys[i % keys.length]] = value;
        return body;
      }
      return { ...body, ...extra };
    });
  return fc.oneof(
    fc.constant(null),
    mutated.map((body) => Buffer.from(JSON.stringify(body))),
    // The same object in UTF-16, with and without a byte-order mark.
    mutated.map((body) => Buffer.from(`\uFEFF${JSON.stringify(body)}`, 'utf16le')),
    mutated.map((body) => Buffer.from(JSON.stringify(body), 'latin1')),
    // Duplicated keys (JSON.parse keeps the last), and lone surrogates escaped in the text.
    mutated.map((body) => {
      const text = JSON.stringify(body);
      return Buffer.from(
        `${text.slice(0, -1)}${text.length > 2 ? ',' : ''}"amount":"1","amount":{"x":"\\ud800"}}`,
      );
    }),
    mutated.map((body) =>
      Buffer.from(
        Object.entries(body)
          .map(
            ([k, v]) =>
              `${percentEncoded(k)}=${percentEncoded(typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))}`,
          )
          .join('&'),
      ),
    ),
    mutated.map((body) =>
      Buffer.from(
        `------x\r\n${Object.entries(body)
          .map(
            ([k, v]) =>
              `Content-Disposition: form-data; name="${k}"\r\n\r\n${String(v)}\r\n------x`,
          )
          .join('\r\n')}--\r\n`,
      ),
    ),
    mutated.map((body) =>
      Buffer.from(
        `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><o>${Object.keys(
          body,
        )
          .map((k) => `<f>${k}&e;</f>`)
          .join('')}</o>`,
      ),
    ),
    fc
      .constantFrom(
        '',
        '{',
        '[]',
        'null',
        '"text"',
        '1',
        '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}',
        '['.repeat(10_000),
        `{"a":"${'x'.repeat(2_000_000)}"}`,
      )
      .map((text) => Buffer.from(text)),
    fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
  );
}
