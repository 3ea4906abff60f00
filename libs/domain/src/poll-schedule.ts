/**
 * When to look a silent order up again. The notification is the first source: most payments
 * settle, and are notified, within minutes, so the first lookups come quickly (30 s, 2, 10 and
 * 30 minutes, an hour); after that the customer has had time to pay and each gap doubles (2, 4,
 * 8, 16, 32 hours). The last step repeats until the horizon, after which the order is expired:
 * with the 72-hour horizon an order nobody pays costs 11 lookups and a cancel, not one an hour.
 */
export const DEFAULT_POLL_SCHEDULE_SECONDS = [
  30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 57_600, 115_200,
] as const;

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

/**
 * The lookups an order nobody pays costs over its life: each poll looks the order up, then asks
 * when to look again (as PollScheduleService does), until the horizon is reached and the order
 * is expired. Only the gaps matter, so the order's start is any instant.
 */
export function lookupsUntilHorizon(
  horizonHours: number,
  scheduleSeconds: readonly number[] = DEFAULT_POLL_SCHEDULE_SECONDS,
): number {
  const startedAt = new Date(0);
  let lookups = 0;
  let due = nextPollAt(lookups, startedAt, startedAt, horizonHours, scheduleSeconds);
  while (due !== 'horizon_reached') {
    lookups += 1;
    due = nextPollAt(lookups, startedAt, due, horizonHours, scheduleSeconds);
  }
  return lookups;
}
