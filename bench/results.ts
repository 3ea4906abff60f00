/**
 * Each benchmark writes what it measured to bench/results/<name>.json (with the machine it ran
 * on and the settings it ran with); `npm run bench:report` makes docs/benchmarks.md's tables from
 * those files. The files are committed with the page, so the page always shows the latest run.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './processes';

export const RESULTS_DIR = join(ROOT, 'bench', 'results');

function versionOf(command: string, args: string[]): string {
  try {
    return execFileSync(command, args, { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim()
      .split('\n')[0];
  } catch {
    return 'unknown';
  }
}

/** The machine a run was made on, as the page shows it. */
export function machine(): Record<string, string | number> {
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memory_gib: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    postgres: versionOf('psql', ['--version']),
    redis: versionOf('redis-server', ['--version']),
  };
}

/** Writes bench/results/<name>.json; `settings` are the BENCH_* variables the run used. */
export function writeResults(name: string, results: Record<string, unknown>): string {
  const settings = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => key.startsWith('BENCH_')),
  );
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${name}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ at: new Date().toISOString(), machine: machine(), settings, ...results }, null, 2)}\n`,
  );
  return file;
}
