/**
 * What one webhook attempt's answer means, like the delivery services shops know (Svix): only a
 * 2xx delivers; 410 Gone disables the endpoint; 429 and 502/503/504 may name their own wait in
 * Retry-After; anything else (3xx included: redirects are not followed) retries on the schedule.
 */
export type AttemptVerdict =
  | { kind: 'delivered' }
  | { kind: 'endpoint_gone' }
  | { kind: 'retry'; delayMs: number }
  | { kind: 'give_up' };

export interface AttemptAnswer {
  /** null when no answer came (refused, reset, timed out). */
  status: number | null;
  retryAfter?: string | null;
}

const RETRY_AFTER_STATUSES = new Set([429, 502, 503, 504]);
/** A Retry-After longer than this is read as this: the schedule's own longest gap. */
const MAX_RETRY_AFTER_MS = 12 * 3_600_000;
const JITTER = 0.2;

/** Seconds or an HTTP date, in milliseconds from `now`; null when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now: number): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
}

/** The schedule's gap after `attemptsMade` attempts, ±20% so a recovering shop is not stampeded. */
export function scheduledDelay(
  scheduleMs: readonly number[],
  attemptsMade: number,
  random: () => number = Math.random,
): number | null {
  const gap = scheduleMs[attemptsMade - 1];
  if (gap === undefined) return null;
  return Math.round(gap * (1 - JITTER + 2 * JITTER * random()));
}

export function judgeAttempt(
  answer: AttemptAnswer,
  attemptsMade: number,
  scheduleMs: readonly number[],
  now: number = Date.now(),
  random: () => number = Math.random,
): AttemptVerdict {
  const { status } = answer;
  if (status !== null && status >= 200 && status < 300) return { kind: 'delivered' };
  if (status === 410) return { kind: 'endpoint_gone' };
  const delayMs = scheduledDelay(scheduleMs, attemptsMade, random);
  if (delayMs === null) return { kind: 'give_up' };
  if (status !== null && RETRY_AFTER_STATUSES.has(status)) {
    const asked = parseRetryAfter(answer.retryAfter, now);
    if (asked !== null) return { kind: 'retry', delayMs: Math.min(asked, MAX_RETRY_AFTER_MS) };
  }
  return { kind: 'retry', delayMs };
}
