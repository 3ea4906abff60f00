/**
 * What one operation costs our processes (the api and the worker, both in this test process):
 * statements sent to PostgreSQL, commits, rows written, queue commands and gateway calls.
 *
 * Statements and queue commands are counted at the drivers (pg's Client.query, ioredis'
 * sendCommand), so the count is the same on the machine's PostgreSQL and on the embedded one.
 * Rows written are PostgreSQL's own per-table counters (pg_stat_user_tables) of the suite's
 * database, read after every connection seen has flushed them (pg_stat_force_next_flush).
 *
 * Only the operation's work is counted:
 * - the test's own reads and waits run as the observer (`observe`) and are left out;
 * - interval timers (the relays' and sweeper's passes, the queue-store watch) skip their ticks
 *   while a window is open: the inbox relay is still woken by the inbox's NOTIFY, which is how a
 *   notification reaches it in steady state, and the same work would only move to another tick;
 * - a BullMQ worker waits for jobs on its own clock (a blocking wait that times out and fetches
 *   again, a stalled-jobs check every 30 s): a fetch is counted when it brings a job, an empty
 *   one and the stalled check are not.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Worker } from 'bullmq';
import Redis from 'ioredis';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import type { RunningService } from '../support/service';

export interface OperationCounts {
  /** Statements of our code (TypeORM, prepared statements, the relay's LISTEN connection). */
  statements: number;
  /** Transactions committed by every connection: explicit COMMITs and single statements. */
  commits: number;
  /** Rows inserted, updated and deleted in the suite's database (every schema). */
  rowsWritten: number;
  /** Redis commands, or on the PostgreSQL queue backend that backend's statements. */
  queueCommands: number;
  /** Gateway calls by endpoint (the sandbox's operation names). */
  gatewayCalls: Record<string, number>;
  /** What was counted, in order (a statement's name or first words, a command's name). */
  sent: string[];
}

type Tally = Pick<OperationCounts, 'statements' | 'commits' | 'queueCommands' | 'sent'>;

/** Who runs the code at hand, when it is not the service doing the operation's work. */
type Context =
  | { role: 'observer' }
  | { role: 'background' }
  /** A BullMQ fetch: its tally joins the operation's only if it brought a job. */
  | { role: 'fetch'; tally: Tally };

const context = new AsyncLocalStorage<Context>();
const emptyTally = (): Tally => ({ statements: 0, commits: 0, queueCommands: 0, sent: [] });

let tally: Tally = emptyTally();
let counting = false;
const clientsSeen = new Set<Client>();
const inTransaction = new WeakSet<Client>();

/** Runs `work` as the test, whose statements and commands are not the operation's. */
export function observe<T>(work: () => Promise<T>): Promise<T> {
  return context.run({ role: 'observer' }, work);
}

function tallyAtHand(): Tally | null {
  const at = context.getStore();
  if (!counting || at?.role === 'observer' || at?.role === 'background') return null;
  return at?.role === 'fetch' ? at.tally : tally;
}

/** BullMQ's PostgreSQL backend pins its connections' search_path to the queue schema. */
function isQueueClient(client: Client): boolean {
  const options = (client as unknown as { connectionParameters?: { options?: string } })
    .connectionParameters?.options;
  return typeof options === 'string' && options.includes('search_path');
}

function statementText(config: unknown): string {
  if (typeof config === 'string') return config;
  const text = (config as { text?: unknown } | null)?.text;
  return typeof text === 'string' ? text : '';
}

function countStatement(client: Client, config: unknown): void {
  clientsSeen.add(client);
  const at = tallyAtHand();
  if (!at) return;
  const queue = isQueueClient(client);
  if (queue) at.queueCommands += 1;
  else at.statements += 1;
  const name = (config as { name?: unknown } | null)?.name;
  const words = statementText(config).replace(/\s+/g, ' ').trim();
  at.sent.push(
    `${queue ? 'queue' : 'sql'}: ${typeof name === 'string' ? name : words.slice(0, 60)}`,
  );
  const text = words.slice(0, 20).toUpperCase();
  if (text.startsWith('BEGIN') || text.startsWith('START TRANSACTION')) {
    inTransaction.add(client);
  } else if (text.startsWith('COMMIT')) {
    inTransaction.delete(client);
    at.commits += 1;
  } else if (text.startsWith('ROLLBACK')) {
    inTransaction.delete(client);
  } else if (!inTransaction.has(client)) {
    at.commits += 1;
  }
}

let installed = false;
let quiet = false;

/**
 * Wraps the drivers and timers; call once, before the service starts (its intervals are set
 * when it boots).
 */
export function installOperationCounters(): void {
  if (installed) return;
  installed = true;

  const query = Client.prototype.query as (...args: unknown[]) => unknown;
  (Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (
    this: Client,
    ...args: unknown[]
  ) {
    countStatement(this, args[0]);
    return query.apply(this, args);
  };

  const sendCommand = Redis.prototype.sendCommand as (...args: unknown[]) => unknown;
  (Redis.prototype as unknown as { sendCommand: (...args: unknown[]) => unknown }).sendCommand =
    function (this: Redis, ...args: unknown[]) {
      const at = tallyAtHand();
      if (at) {
        at.queueCommands += 1;
        at.sent.push(`redis: ${(args[0] as { name?: string }).name ?? '?'}`);
      }
      return sendCommand.apply(this, args);
    };

  const workerMethods = Worker.prototype as unknown as Record<
    string,
    (...args: unknown[]) => Promise<unknown>
  >;
  const fetch = workerMethods._getNextJob;
  workerMethods._getNextJob = async function (this: Worker, ...args: unknown[]) {
    const attempt = emptyTally();
    const job = await context.run({ role: 'fetch', tally: attempt }, () => fetch.apply(this, args));
    if (job && counting) {
      tally.statements += attempt.statements;
      tally.commits += attempt.commits;
      tally.queueCommands += attempt.queueCommands;
      tally.sent.push(...attempt.sent);
    }
    return job;
  };
  const stalledCheck = workerMethods.moveStalledJobsToWait;
  workerMethods.moveStalledJobsToWait = function (this: Worker, ...args: unknown[]) {
    return context.run({ role: 'background' }, () => stalledCheck.apply(this, args));
  };

  // Only the service's own intervals (libs/): the libraries' timers are left as they are.
  const setIntervalAsIs = globalThis.setInterval;
  globalThis.setInterval = ((
    callback: (...args: unknown[]) => void,
    ms?: number,
    ...args: unknown[]
  ) => {
    if (!/\/libs\/[a-z-]+\/src\//.test(new Error().stack ?? ''))
      return setIntervalAsIs(callback, ms, ...args);
    return setIntervalAsIs(() => {
      if (!quiet) callback(...args);
    }, ms);
  }) as typeof setInterval;
}

async function rowsWritten(dataSource: DataSource): Promise<number> {
  const [row] = (await dataSource.query(
    `SELECT pg_stat_force_next_flush(),
            (SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::float8
               FROM pg_stat_user_tables) AS rows`,
  )) as { rows: number }[];
  return row.rows;
}

/**
 * Has every connection that ever sent a statement publish its table counters now (PostgreSQL
 * publishes them at most once a second, or ten seconds after going idle).
 */
async function flushCountersOfClientsSeen(): Promise<void> {
  for (const client of clientsSeen) {
    if ((client as unknown as { _ending?: boolean })._ending) clientsSeen.delete(client);
  }
  await Promise.all(
    [...clientsSeen].map((client) =>
      client.query('SELECT pg_stat_force_next_flush()').catch(() => undefined),
    ),
  );
}

/** Time for a timer's pass under way to end before a window opens, and for trailing work after. */
const SETTLE_MS = 300;

/**
 * Counts what `operation` costs. It runs as the observer and resolves once the operation's work
 * is over (e.g. the merchant event written and the queue idle); what is still in flight then has
 * SETTLE_MS to end before the window closes.
 */
export async function countOperation(
  service: RunningService,
  dataSource: DataSource,
  operation: () => Promise<void>,
): Promise<OperationCounts> {
  quiet = true;
  try {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    return await observe(async () => {
      await flushCountersOfClientsSeen();
      const rowsBefore = await rowsWritten(dataSource);
      await service.sandbox.control.resetRequests();
      tally = emptyTally();
      counting = true;
      try {
        await operation();
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      } finally {
        counting = false;
      }
      const counted = tally;
      await flushCountersOfClientsSeen();
      const rowsAfter = await rowsWritten(dataSource);
      const { counts } = await service.sandbox.control.requests();
      const gatewayCalls: Record<string, number> = {};
      for (const [name, calls] of Object.entries(counts)) if (calls > 0) gatewayCalls[name] = calls;
      return { ...counted, rowsWritten: rowsAfter - rowsBefore, gatewayCalls };
    });
  } finally {
    quiet = false;
  }
}
