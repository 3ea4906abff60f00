import fc from 'fast-check';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Fuzzing that keeps what it finds: a failing run's seed and path are written to a file kept in
 * the repository (test/fuzz/regressions.json), and every later run replays each kept case of that
 * property before generating new ones, so a fault once found stays a test.
 */
export interface KeptCase {
  seed: number;
  path: string;
  /** The first line of the failure when it was found. */
  failure: string;
  found: string;
}

export type KeptCases = Record<string, KeptCase[]>;

export const REGRESSIONS_FILE = join(__dirname, 'regressions.json');

export function readKeptCases(file: string): KeptCases {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as KeptCases) : {};
}

function keep(file: string, property: string, found: KeptCase): void {
  const cases = readKeptCases(file);
  const list = cases[property] ?? [];
  if (!list.some((c) => c.seed === found.seed && c.path === found.path)) list.push(found);
  cases[property] = list;
  writeFileSync(file, `${JSON.stringify(cases, null, 2)}\n`);
}

const firstLine = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0].slice(0, 300);

export async function checkKeepingFailures<T>(
  property: string,
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void> | void,
  options: { runs: number; seed?: number; file?: string },
): Promise<void> {
  const file = options.file ?? REGRESSIONS_FILE;
  const check = fc.asyncProperty(arbitrary, async (value) => {
    await predicate(value);
  });
  for (const kept of readKeptCases(file)[property] ?? []) {
    const replay = await fc.check(check, {
      seed: kept.seed,
      path: kept.path,
      numRuns: 1,
      endOnFailure: true,
    });
    if (replay.failed) {
      throw new Error(
        `kept case of "${property}" (found ${kept.found}: ${kept.failure}) fails again:\n${fc.defaultReportMessage(replay)}`,
      );
    }
  }
  const details = await fc.check(check, {
    numRuns: options.runs,
    seed: options.seed,
    endOnFailure: true,
  });
  if (details.failed) {
    keep(file, property, {
      seed: details.seed,
      path: details.counterexamplePath ?? '',
      failure: firstLine(details.errorInstance),
      found: new Date().toISOString(),
    });
    throw new Error(
      `${fc.defaultReportMessage(details) ?? 'property failed'}\n(kept in ${file} as a regression case)`,
    );
  }
}
