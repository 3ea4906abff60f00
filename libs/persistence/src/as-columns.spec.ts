import { asColumns } from './prepared-statement';

describe('asColumns', () => {
  it('turns rows into one array per column, in row order', () => {
    expect(
      asColumns([
        ['a', 1, null],
        ['b', 2, true],
      ]),
    ).toEqual([
      ['a', 'b'],
      [1, 2],
      [null, true],
    ]);
  });

  it('answers no columns for no rows', () => {
    expect(asColumns([])).toEqual([]);
  });
});
