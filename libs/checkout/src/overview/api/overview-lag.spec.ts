import { percentileUnder } from './overview.service';

describe('percentileUnder', () => {
  it('names the bound of the lag bin holding the share of applied notifications (open, failed and ignored left out)', () => {
    const lag = [
      { key: '250', count: 90 },
      { key: '1000', count: 5 },
      { key: '5000', count: 5 },
      { key: 'open', count: 1000 },
      { key: 'failed', count: 1000 },
      { key: 'ignored', count: 1000 },
    ];
    expect(percentileUnder(lag, 0.5)).toBe(250);
    expect(percentileUnder(lag, 0.95)).toBe(1000);
    expect(percentileUnder(lag, 0.96)).toBe(5000);
  });

  it('is null when nothing was verified or the share lies past the last bin', () => {
    expect(percentileUnder([{ key: 'open', count: 3 }], 0.95)).toBeNull();
    expect(percentileUnder([], 0.5)).toBeNull();
    expect(
      percentileUnder(
        [
          { key: '250', count: 1 },
          { key: 'more', count: 9 },
        ],
        0.95,
      ),
    ).toBeNull();
  });
});
