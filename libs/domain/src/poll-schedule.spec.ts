import { nextPollAt } from './poll-schedule';

describe('nextPollAt', () => {
  const created = new Date('2026-01-01T00:00:00Z');

  it('backs off 30 s, 1 min, 2, 5, 10, 30 min, then hourly', () => {
    const gaps = [0, 1, 2, 3, 4, 5, 6, 7, 20].map((attempt) => {
      const next = nextPollAt(attempt, created, created, 72);
      return next === 'horizon_reached' ? next : (next.getTime() - created.getTime()) / 1000;
    });
    expect(gaps).toEqual([30, 60, 120, 300, 600, 1800, 3600, 3600, 3600]);
  });

  it('never schedules past the horizon, and says when it is reached', () => {
    const almost = new Date(created.getTime() + 72 * 3_600_000 - 10_000);
    expect(nextPollAt(9, created, almost, 72)).toEqual(
      new Date(created.getTime() + 72 * 3_600_000),
    );
    expect(nextPollAt(9, created, new Date(created.getTime() + 72 * 3_600_000), 72)).toBe(
      'horizon_reached',
    );
  });

  it('follows a configured schedule', () => {
    expect(nextPollAt(0, created, created, 1, [1, 2])).toEqual(new Date(created.getTime() + 1000));
    expect(nextPollAt(5, created, created, 1, [1, 2])).toEqual(new Date(created.getTime() + 2000));
  });
});
