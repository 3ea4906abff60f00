/**
 * Work per operation, as counters read before and after a stage: PostgreSQL's commits and rows
 * written for the bench's own database (pg_stat_database) and the CPU time of processes
 * (/proc/<pid>/stat), so that the figures hold from machine to machine.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Client } from 'pg';

export interface DatabaseCounters {
  commits: number;
  inserted: number;
  updated: number;
  deleted: number;
}

/**
 * PostgreSQL 15 publishes a backend's counts when its transaction ends but at most once a second,
 * and an idle backend's within ten: wait that long after the stage before reading.
 */
const STATS_SETTLE_MS = 11_000;

/** `read` once the counters of the work just done are published (STATS_SETTLE_MS later). */
export async function settledReading<T>(read: () => Promise<T>): Promise<T> {
  await new Promise((resolve) => setTimeout(resolve, STATS_SETTLE_MS));
  return read();
}

/** A counter's growth between two readings, per operation, at `digits` decimals ("2.00"). */
export const costPer = (from: number, to: number, operations: number, digits = 2): string =>
  ((to - from) / operations).toFixed(digits);

/** Commits and rows written per operation between two readings, as the results record them. */
export function databaseWorkPer(from: DatabaseCounters, to: DatabaseCounters, operations: number) {
  const per = (counter: keyof DatabaseCounters) =>
    Number(costPer(from[counter], to[counter], operations));
  return { commits: per('commits'), rows_inserted: per('inserted'), rows_updated: per('updated') };
}

export async function databaseCounters(
  client: Client,
  database: string,
): Promise<DatabaseCounters> {
  const { rows } = await client.query(
    `SELECT xact_commit::float8 AS commits, tup_inserted::float8 AS inserted,
            tup_updated::float8 AS updated, tup_deleted::float8 AS deleted
       FROM pg_stat_database WHERE datname = $1`,
    [database],
  );
  return rows[0] as DatabaseCounters;
}

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** /proc/<pid>/stat's fields after the command name (which may hold spaces); null once gone. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

const ms = (ticks: number) => (ticks * 1000) / TICKS_PER_SECOND;

/** CPU milliseconds (user + system) a process has used; 0 once it is gone. */
export function cpuMs(pid: number): number {
  const fields = statFields(pid);
  return fields ? ms(Number(fields[11]) + Number(fields[12])) : 0;
}

/**
 * CPU milliseconds the whole machine has spent busy (every core: user, nice, system, interrupts,
 * steal; not idle or waiting on I/O), from /proc/stat.
 */
export function machineBusyMs(): number {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const ticks = fields.map(Number);
  const total = ticks.slice(0, 8).reduce((sum, value) => sum + value, 0);
  return ms(total - ticks[3] - ticks[4]);
}

/** Pids of the processes named `name` (the executable: postgres, redis-server). */
export function pidsOf(name: string): number[] {
  try {
    return execFileSync('pgrep', ['-x', name])
      .toString()
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * CPU of a group of processes: the live ones, plus what the group's root has collected from
 * children that have exited (PostgreSQL forks a backend per connection, and pools close idle
 * connections between two readings).
 */
export function groupCpuMs(name: string): number {
  const pids = pidsOf(name);
  let total = 0;
  for (const pid of pids) {
    const fields = statFields(pid);
    if (!fields) continue;
    total += ms(Number(fields[11]) + Number(fields[12]));
    // The root (its parent is not in the group) carries its reaped children's time.
    if (!pids.includes(Number(fields[1]))) total += ms(Number(fields[13]) + Number(fields[14]));
  }
  return total;
}

/** Peak resident set size of a process in MiB (VmHWM). */
export function peakRssMiB(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /VmHWM:\s+(\d+) kB/.exec(status);
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Statements and items of each kind shared so far (shared_statement_items), over the apps given. */
export async function sharedStatements(
  baseUrls: string[],
): Promise<Record<string, { statements: number; items: number }>> {
  const shared: Record<string, { statements: number; items: number }> = {};
  for (const baseUrl of baseUrls) {
    const text = await (await fetch(`${baseUrl}/metrics`)).text();
    for (const match of text.matchAll(
      /^shared_statement_items_(count|sum)\{statement="([a-z_]+)"\} (\S+)$/gm,
    )) {
      const entry = (shared[match[2]] ??= { statements: 0, items: 0 });
      if (match[1] === 'count') entry.statements += Number(match[3]);
      else entry.items += Number(match[3]);
    }
  }
  return shared;
}

/** Items per statement of each kind between two readings: `inbox_read 3.1, ...`. */
export function itemsPerStatement(
  from: Awaited<ReturnType<typeof sharedStatements>>,
  to: Awaited<ReturnType<typeof sharedStatements>>,
): string {
  return Object.entries(to)
    .map(([kind, { statements, items }]) => {
      const n = statements - (from[kind]?.statements ?? 0);
      const per = n > 0 ? (items - (from[kind]?.items ?? 0)) / n : 0;
      return `${kind} ${per.toFixed(1)}`;
    })
    .join(', ');
}

/**
 * Stages of the service and of the floor per measurement, alternated (service first, then floor
 * first, ...): each figure is the median of its stages, so a moment of the shared machine's noise
 * or the order of the two does not decide the ratio. BENCH_ROUNDS, 3 by default.
 */
export function benchRounds(): number {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  if (!Number.isInteger(rounds) || rounds < 1) {
    throw new Error(
      `BENCH_ROUNDS must be a whole number of at least 1, not ${process.env.BENCH_ROUNDS}`,
    );
  }
  return rounds;
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** Each numeric field's median over the records (which share their fields). */
export function medians<T extends Record<string, number>>(records: T[]): T {
  const first = records[0];
  return Object.fromEntries(
    Object.keys(first).map((key) => [key, median(records.map((record) => record[key]))]),
  ) as T;
}

/**
 * The record at the median of `by` (the lower of the two middle ones for an even count): where a
 * goal adds several of a stage's figures, they come from one stage, not from different ones.
 */
export function medianBy<T>(records: T[], by: (record: T) => number): T {
  const sorted = [...records].sort((a, b) => by(a) - by(b));
  return sorted[Math.floor((sorted.length - 1) / 2)];
}
