/**
 * When to look a silent order up again: a short backoff first (most payments settle within
 * minutes), then the last step repeats until the horizon, after which the order is expired.
 */
export const DEFAULT_POLL_SCHEDULE_SECONDS = [30, 60, 120, 300, 600, 1800, 3600] as const;

export function nextPollAt(
  attemptsSoFar: number,
  createdAt: Date,
  now: Date,
  horizonHours: number,
  scheduleSeconds: readonly number[] = DEFAULT_POLL_SCHEDULE_SECONDS,
): Date | 'horizon_reached' {
  const horizon = createdAt.getTime() + horizonHours * 3_600_000;
  if (now.getTime() >= horizon) return 'horizon_reached';
  const step = scheduleSeconds[Math.min(attemptsSoFar, scheduleSeconds.length - 1)];
  return new Date(Math.min(now.getTime() + step * 1000, horizon));
}
