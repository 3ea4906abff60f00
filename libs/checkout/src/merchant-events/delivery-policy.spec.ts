import { judgeAttempt, parseRetryAfter, scheduledDelay } from './delivery-policy';

const SCHEDULE = [5_000, 30_000, 120_000];
const middle = () => 0.5;

describe('webhook delivery policy', () => {
  it('delivers on any 2xx and nothing else', () => {
    expect(judgeAttempt({ status: 200 }, 1, SCHEDULE)).toEqual({ kind: 'delivered' });
    expect(judgeAttempt({ status: 204 }, 1, SCHEDULE)).toEqual({ kind: 'delivered' });
    for (const status of [301, 302, 400, 404, 500, null]) {
      expect(judgeAttempt({ status }, 1, SCHEDULE, 0, middle)).toEqual({
        kind: 'retry',
        delayMs: 5_000,
      });
    }
  });

  it('disables on 410 Gone, whatever the attempt', () => {
    expect(judgeAttempt({ status: 410 }, 1, SCHEDULE)).toEqual({ kind: 'endpoint_gone' });
    expect(judgeAttempt({ status: 410 }, 99, SCHEDULE)).toEqual({ kind: 'endpoint_gone' });
  });

  it('honours Retry-After on 429 and 502/503/504, in seconds or as a date', () => {
    const now = Date.parse('2026-11-25T10:00:00Z');
    for (const status of [429, 502, 503, 504]) {
      expect(judgeAttempt({ status, retryAfter: '7' }, 1, SCHEDULE, now)).toEqual({
        kind: 'retry',
        delayMs: 7_000,
      });
    }
    expect(
      judgeAttempt({ status: 503, retryAfter: 'Wed, 25 Nov 2026 10:01:00 GMT' }, 1, SCHEDULE, now),
    ).toEqual({ kind: 'retry', delayMs: 60_000 });
    // Not on other statuses, and not past the schedule's longest gap.
    expect(judgeAttempt({ status: 500, retryAfter: '7' }, 1, SCHEDULE, now, middle)).toEqual({
      kind: 'retry',
      delayMs: 5_000,
    });
    expect(judgeAttempt({ status: 429, retryAfter: '999999' }, 1, SCHEDULE, now)).toEqual({
      kind: 'retry',
      delayMs: 12 * 3_600_000,
    });
  });

  it('gives up after the last gap of the schedule', () => {
    expect(judgeAttempt({ status: 500 }, 3, SCHEDULE, 0, middle)).toEqual({
      kind: 'retry',
      delayMs: 120_000,
    });
    expect(judgeAttempt({ status: 500 }, 4, SCHEDULE)).toEqual({ kind: 'give_up' });
    expect(judgeAttempt({ status: 429, retryAfter: '1' }, 4, SCHEDULE)).toEqual({
      kind: 'give_up',
    });
  });

  it('jitters each gap by at most a fifth either way', () => {
    expect(scheduledDelay(SCHEDULE, 2, () => 0)).toBe(24_000);
    expect(scheduledDelay(SCHEDULE, 2, () => 0.999999)).toBe(36_000);
  });

  it('reads Retry-After as seconds or a date, and nothing else', () => {
    expect(parseRetryAfter('120', 0)).toBe(120_000);
    expect(parseRetryAfter(' 3 ', 0)).toBe(3_000);
    expect(parseRetryAfter('soon', 0)).toBeNull();
    expect(parseRetryAfter(null, 0)).toBeNull();
    expect(parseRetryAfter('Thu, 01 Jan 1970 00:00:00 GMT', 5_000)).toBe(0);
  });
});
