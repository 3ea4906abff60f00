import { readRange } from './report-range';

describe('readRange', () => {
  it('reads dates as whole local days, `to` included (the bound is the next day)', () => {
    expect(readRange({ from: '2026-02-28', to: '2026-02-28' }, 'Africa/Nairobi')).toEqual({
      range: { from: '2026-02-28', to: '2026-03-01', toIsDay: true, tz: 'Africa/Nairobi' },
      problems: [],
    });
    expect(readRange({ from: '2024-12-31', to: '2024-12-31', tz: 'UTC' }, 'X').range?.to).toBe(
      '2025-01-01',
    );
  });

  it('keeps instants as given, `to` excluded', () => {
    expect(
      readRange({ from: '2026-03-01T10:00:00+03:00', to: '2026-03-02T00:00:00.5Z' }, 'UTC').range,
    ).toEqual({
      from: '2026-03-01T10:00:00+03:00',
      to: '2026-03-02T00:00:00.5Z',
      toIsDay: false,
      tz: 'UTC',
    });
  });

  it('names every bad field at once', () => {
    const { range, problems } = readRange(
      { from: '2026-02-30', to: '2026-03-01T10:00', tz: 'Atlantis/Capital' },
      'UTC',
    );
    expect(range).toBeNull();
    expect(problems.map((p) => p.field).sort()).toEqual(['from', 'to', 'tz']);
  });

  it('refuses years before 1900 and from 9999, whose UTC instants no date-time can write', () => {
    for (const [from, to] of [
      ['1899-12-31', '1900-01-02'],
      ['2026-01-01', '9999-12-31'],
      ['2026-01-01', '9999-06-01T10:00:00-05:00'],
    ]) {
      const { range, problems } = readRange({ from, to }, 'UTC');
      expect(range).toBeNull();
      expect(problems).toHaveLength(1);
    }
    expect(readRange({ from: '9998-12-01', to: '9998-12-31' }, 'UTC').problems).toEqual([]);
  });
});
