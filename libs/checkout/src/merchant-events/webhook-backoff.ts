import { MinimalJob } from 'bullmq';

/** No gap between two attempts is longer than this, so a recovered shop hears from us within the hour. */
export const MAX_WEBHOOK_RETRY_GAP_MS = 3_600_000;

const DEFAULT_BASE_MS = 2000;

/**
 * Exponential from the job's base delay (MERCHANT_WEBHOOK_BACKOFF_MS, carried in the job's
 * backoff options), capped at an hour: with 2 s and the catalogue's 35 attempts the last try is a day after the
 * first, so a shop that is down for a day still gets its events.
 */
export function merchantWebhookBackoff(
  attemptsMade: number,
  _type?: string,
  _error?: Error,
  job?: MinimalJob,
): number {
  const backoff = job?.opts.backoff;
  const base =
    typeof backoff === 'object' && backoff.delay && backoff.delay > 0
      ? backoff.delay
      : DEFAULT_BASE_MS;
  const exponent = Math.max(0, attemptsMade - 1);
  // 2 ** 40 already dwarfs the cap; stop growing before the number does anything odd.
  return Math.min(base * 2 ** Math.min(exponent, 40), MAX_WEBHOOK_RETRY_GAP_MS);
}
