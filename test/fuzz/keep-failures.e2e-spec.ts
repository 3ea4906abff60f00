import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkKeepingFailures, readKeptCases } from './keep-failures';

describe('fuzzing keeps what it finds', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kept-cases-'));
  const file = join(dir, 'regressions.json');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes a failing case down and replays it first on the next run, until it is fixed', async () => {
    const failing: number[] = [];
    const belowFifty = (n: number) => {
      if (n >= 50) {
        failing.push(n);
        throw new Error(`${n} is not below 50`);
      }
    };
    await expect(
      checkKeepingFailures('below fifty', fc.nat(1000), belowFifty, { runs: 200, file }),
    ).rejects.toThrow(/kept in .*regressions\.json/);
    const kept = readKeptCases(file)['below fifty'];
    expect(kept).toHaveLength(1);
    expect(kept[0].failure).toBe(`${failing[0]} is not below 50`);

    // The next run meets the same value before generating anything, and fails on it again.
    const replayed: number[] = [];
    await expect(
      checkKeepingFailures(
        'below fifty',
        fc.nat(1000),
        (n) => {
          replayed.push(n);
          belowFifty(n);
        },
        { runs: 200, file },
      ),
    ).rejects.toThrow(/kept case of "below fifty"/);
    expect(replayed[0]).toBe(failing[0]);

    // Fixed: the kept case passes, new cases run, and the case stays in the file.
    let runs = 0;
    await checkKeepingFailures('below fifty', fc.nat(1000), () => void (runs += 1), {
      runs: 30,
      file,
    });
    expect(runs).toBe(31);
    expect(readKeptCases(file)['below fifty']).toHaveLength(1);
  });
});
