import { lookupsUntilHorizon, nextPollAt } from './poll-schedule';

describe('nextPollAt', () => {
  const created = new Date('2026-01-01T00:00:00Z');

  it('backs off 30 s, 2, 10, 30 min, 1 h, then doubles up to 32 h', () => {
    const gaps = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 20].map((attempt) => {
      const next = nextPollAt(attempt, created, created, 720);
      return next === 'horizon_reached' ? next : (next.getTime() - created.getTime()) / 1000;
    });
    expect(gaps).toEqual([
      30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 57_600, 115_200, 115_200,
    ]);
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

describe('lookupsUntilHorizon', () => {
  it('costs an order nobody pays at most 12 lookups over the 72-hour horizon', () => {
    const lookups = lookupsUntilHorizon(72);
    expect(lookups).toBeLessThanOrEqual(12);
    expect(lookups).toBe(11);
  });

  it('counts a lookup at each step of a configured schedule, the one at the horizon included', () => {
    // Every 10 minutes for an hour: at 10, 20, 30, 40, 50 and 60 minutes.
    expect(lookupsUntilHorizon(1, [600])).toBe(6);
  });
});
