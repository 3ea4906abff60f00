import { cutText } from './bounded-text';

/**
 * What PostgreSQL cannot take, as JSON text writes it: an escaped NUL or an escaped surrogate (a
 * lone one, which JSON.stringify escapes, or one half of a pair a sender escaped). A JSON text
 * without it holds nothing storableText would change, so one scan of the text spares the walk.
 * It also matches a literal "\\u0000" in a string; that text just takes the cleaning walk.
 */
const UNSTORABLE_ESCAPE = /\\u(?:0000|d[89a-f])/i;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * False when the JSON text (as sent, or as JSON.stringify wrote it) holds no string that
 * storableText would change. Text decoded from UTF-8 holds no raw lone surrogate and JSON
 * allows no raw NUL, so only an escape can bring either in.
 */
export const mayHoldUnstorableText = (json: string): boolean => UNSTORABLE_ESCAPE.test(json);

/**
 * Text as PostgreSQL can keep it: no NUL (text cannot hold one) and no lone surrogate (not
 * UTF-8; jsonb refuses its escape), each shown as U+FFFD, and at most `max` characters (the
 * column's width). What an outsider sends (a notification, a gateway answer) is then kept as
 * sent but for those characters, never refused by the database.
 */
export function storableText(value: string, max?: number): string {
  const clean = value.replace(LONE_SURROGATE, '\uFFFD').replaceAll('\u0000', '\uFFFD');
  if (max === undefined || clean.length <= max) return clean;
  return cutText(clean, max);
}

/**
 * A parsed JSON value with every key and string storable (storableText); nested deeper than
 * `maxDepth`, a value is replaced by "[nested too deep]".
 */
export function storableJson(value: unknown, maxDepth = Infinity, depth = 0): unknown {
  if (typeof value === 'string') return storableText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= maxDepth) return '[nested too deep]';
  if (Array.isArray(value)) return value.map((item) => storableJson(item, maxDepth, depth + 1));
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, item]) => [
      storableText(key),
      storableJson(item, maxDepth, depth + 1),
    ]),
  );
}
