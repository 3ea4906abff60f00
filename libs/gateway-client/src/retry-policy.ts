import { GatewayError, GatewayUnavailableError } from './gateway-errors';

export interface BackoffOptions {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = {
  maxAttempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 2000,
};

/**
 * The one retry predicate: only an unavailable gateway (network, timeout, 5xx) is worth asking
 * again, and only for calls that are safe to repeat (see GatewayClient's per-operation policy).
 */
export function isRetryableUnavailability(error: unknown): error is GatewayError {
  return error instanceof GatewayUnavailableError;
}

/** Full jitter: a random delay up to base × 2^(attempt-1), capped, so replicas do not retry in step. */
export function backoffDelayMs(
  attempt: number,
  options: BackoffOptions,
  random = Math.random,
): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(random() * ceiling);
}

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));
