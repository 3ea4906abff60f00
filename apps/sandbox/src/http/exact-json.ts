/**
 * JSON with exact numbers. The gateway receives and answers amounts as JSON numbers ("10.00");
 * JSON.parse would turn them into floats, so numbers are kept as their source text.
 */
export class DecimalLiteral {
  constructor(readonly text: string) {}
}

export class MalformedJsonError extends Error {}

/** Parses strict JSON; every number becomes a DecimalLiteral holding its exact text. */
export function parseExactJson(text: string): unknown {
  let at = 0;
  const fail = (): never => {
    throw new MalformedJsonError(`Unexpected input at position ${at}`);
  };
  const skip = (): void => {
    while (at < text.length && ' \t\n\r'.includes(text[at])) at += 1;
  };
  const value = (): unknown => {
    skip();
    const ch = text[at];
    if (ch === '{') return object();
    if (ch === '[') return array();
    if (ch === '"') return string();
    if (ch === '-' || (ch >= '0' && ch <= '9')) return number();
    for (const [word, result] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (text.startsWith(word, at)) {
        at += word.length;
        return result;
      }
    }
    return fail();
  };
  const object = (): Record<string, unknown> => {
    const result: Record<string, unknown> = {};
    at += 1;
    skip();
    if (text[at] === '}') {
      at += 1;
      return result;
    }
    for (;;) {
      skip();
      if (text[at] !== '"') fail();
      const key = string();
      skip();
      if (text[at] !== ':') fail();
      at += 1;
      result[key] = value();
      skip();
      if (text[at] === ',') {
        at += 1;
        continue;
      }
      if (text[at] === '}') {
        at += 1;
        return result;
      }
      fail();
    }
  };
  const array = (): unknown[] => {
    const result: unknown[] = [];
    at += 1;
    skip();
    if (text[at] === ']') {
      at += 1;
      return result;
    }
    for (;;) {
      result.push(value());
      skip();
      if (text[at] === ',') {
        at += 1;
        continue;
      }
      if (text[at] === ']') {
        at += 1;
        return result;
      }
      fail();
    }
  };
  const string = (): string => {
    const start = at;
    at += 1;
    while (at < text.length && text[at] !== '"') {
      if (text[at] === '\\') at += 1;
      at += 1;
    }
    if (text[at] !== '"') fail();
    at += 1;
    try {
      return JSON.parse(text.slice(start, at)) as string;
    } catch {
      return fail();
    }
  };
  const number = (): DecimalLiteral => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(at));
    if (!match) return fail();
    at += match[0].length;
    return new DecimalLiteral(match[0]);
  };
  const result = value();
  skip();
  if (at !== text.length) fail();
  return result;
}

/** JSON.stringify that writes DecimalLiteral values as bare numbers, digit for digit. */
export function stringifyExact(input: unknown): string {
  if (input instanceof DecimalLiteral) return input.text;
  if (input === null || input === undefined) return 'null';
  if (Array.isArray(input)) return `[${input.map((item) => stringifyExact(item)).join(',')}]`;
  if (typeof input === 'object') {
    const fields = Object.entries(input as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .map(([key, item]) => `${JSON.stringify(key)}:${stringifyExact(item)}`);
    return `{${fields.join(',')}}`;
  }
  return JSON.stringify(input);
}

const PLAIN_DECIMAL = /^\d+(\.\d+)?$/;

/** True for an unsigned decimal without exponent, e.g. "10", "10.50". */
export function isPlainDecimal(text: string): boolean {
  return PLAIN_DECIMAL.test(text);
}

/** Compares two plain decimals by their digits, without floating point. */
export function compareDecimals(a: string, b: string): number {
  const split = (text: string): [string, string] => {
    const [whole, fraction = ''] = text.split('.');
    return [whole.replace(/^0+(?=\d)/, ''), fraction];
  };
  const [aw, af] = split(a);
  const [bw, bf] = split(b);
  if (aw.length !== bw.length) return aw.length < bw.length ? -1 : 1;
  const width = Math.max(af.length, bf.length);
  const left = aw + af.padEnd(width, '0');
  const right = bw + bf.padEnd(width, '0');
  return left === right ? 0 : left < right ? -1 : 1;
}

/** A decimal equal to zero ("0", "0.00"). */
export function isZeroDecimal(text: string): boolean {
  return /^0+(\.0+)?$/.test(text);
}
