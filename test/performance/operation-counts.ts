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
 *   one and the stalled check are not;
 * - a window opens once the service has been still for a while (no statement or command of its
 *   own under way or sent), so a timer's pass that had begun is over, and closes once the
 *   operation is over and the service has been still again, so its trailing work is in. On a
 *   loaded machine that takes longer, not a different count.
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
  /** What went amiss with the window (the service never still), to read beside a count. */
  notes: string[];
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

/** Adds what was held apart (a fetch that brought a job, a claim that claimed rows) to a tally. */
function addTally(into: Tally, held: Tally): void {
  into.statements += held.statements;
  into.commits += held.commits;
  into.queueCommands += held.queueCommands;
  into.sent.push(...held.sent);
}

let tally: Tally = emptyTally();
let counting = false;
const clientsSeen = new Set<Client>();
const inTransaction = new WeakSet<Client>();

/** The service's own statements and commands under way, and when one was last sent or answered. */
let serviceWorkUnderWay = 0;
let serviceLastBusyAt = performance.now();

/** Runs `work` as the test, whose statements and commands are not the operation's. */
export function observe<T>(work: () => Promise<T>): Promise<T> {
  return context.run({ role: 'observer' }, work);
}

function tallyAtHand(): Tally | null {
  const at = context.getStore();
  if (!counting || at?.role === 'observer' || at?.role === 'background') return null;
  return at?.role === 'fetch' ? at.tally : tally;
}

/**
 * Notes service work that starts now (an empty fetch, the stalled check and the test's own work
 * are not the service's); the answer is called when it ends.
 */
function serviceWorkStarts(): (() => void) | null {
  if (context.getStore() !== undefined) return null;
  serviceWorkUnderWay += 1;
  serviceLastBusyAt = performance.now();
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    serviceWorkUnderWay -= 1;
    serviceLastBusyAt = performance.now();
  };
}

/**
 * Calls `ends` when a driver call ends: its callback (the last argument) or its answer settle;
 * with the result when there is one.
 */
function whenSettled(
  args: unknown[],
  send: (args: unknown[]) => unknown,
  ends: (result?: unknown) => void,
): unknown {
  const last = args.length - 1;
  const callback = args[last];
  if (typeof callback === 'function') {
    args[last] = function (this: unknown, ...answer: unknown[]) {
      ends(answer[0] ? undefined : answer[1]);
      return (callback as (...answer: unknown[]) => unknown).apply(this, answer);
    };
    return send(args);
  }
  const sent = send(args);
  const answer = sent as { then?: unknown; once?: unknown } | null | undefined;
  if (typeof answer?.then === 'function') {
    (sent as Promise<unknown>).then(
      (result) => ends(result),
      () => ends(),
    );
  } else if (typeof answer?.once === 'function') {
    // A submittable (e.g. a cursor) says it is over with `end` or `error`.
    const emitter = sent as { once: (event: string, listener: () => void) => void };
    emitter.once('end', () => ends());
    emitter.once('error', () => ends());
  } else {
    ends();
  }
  return sent;
}

/**
 * Waits until the service has had nothing under way, and sent nothing, for `stillMs`; false if
 * it is still busy after `limitMs`.
 */
async function serviceStill(stillMs: number, limitMs: number): Promise<boolean> {
  const giveUpAt = performance.now() + limitMs;
  for (;;) {
    const now = performance.now();
    if (serviceWorkUnderWay === 0 && now - serviceLastBusyAt >= stillMs) return true;
    if (now >= giveUpAt) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
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

function countStatement(client: Client, config: unknown, at = tallyAtHand()): void {
  clientsSeen.add(client);
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

/**
 * The inbox relay's claim of due rows, which a signal's pass also runs when no pass has claimed
 * for two seconds. In steady state the timed passes claim every second, but a window holds them
 * back (on a loaded machine for longer than two seconds): a claim that finds nothing due is then
 * their sweep, moved into the operation's pass, and is not counted; one that claims rows is.
 */
const SWEEP_CLAIMS = new Set(['inbox-claim-due']);

let installed = false;
let quiet = false;

/**
 * The members of the drivers and of BullMQ that the counters wrap or read; some are private, so
 * an upgrade that renames one fails here, by name, rather than as a count off its budget.
 */
function assertDriverMembers(): void {
  const probe = new Client() as unknown as Record<string, unknown>;
  const expected: [string, unknown, string][] = [
    ["pg's Client.prototype.query", Client.prototype.query, 'function'],
    ["pg's client._ending", probe._ending, 'boolean'],
    ["pg's client.connectionParameters", probe.connectionParameters, 'object'],
    ["ioredis' Redis.prototype.sendCommand", Redis.prototype.sendCommand, 'function'],
    [
      "BullMQ's Worker.prototype._getNextJob",
      (Worker.prototype as unknown as Record<string, unknown>)._getNextJob,
      'function',
    ],
    [
      "BullMQ's Worker.prototype.moveStalledJobsToWait",
      (Worker.prototype as unknown as Record<string, unknown>).moveStalledJobsToWait,
      'function',
    ],
  ];
  const missing = expected.filter(([, member, type]) => typeof member !== type || member === null);
  if (missing.length === 0) return;
  const found = missing.map(
    ([name, member, type]) =>
      `${name} is ${member === null ? 'null' : typeof member}, not a ${type}`,
  );
  throw new Error(
    `operation counters: ${found.join('; ')}: the driver or BullMQ changed, and ` +
      'test/performance/operation-counts.ts must follow',
  );
}

/** The file of the code that called `of` (the frame right below it). */
function callerFile(of: (...args: never[]) => unknown): string {
  const { prepareStackTrace, stackTraceLimit } = Error;
  try {
    Error.stackTraceLimit = 1;
    Error.prepareStackTrace = (_error, sites) => sites;
    const holder: { stack?: NodeJS.CallSite[] } = {};
    Error.captureStackTrace(holder, of);
    return holder.stack?.[0]?.getFileName() ?? '';
  } finally {
    Error.prepareStackTrace = prepareStackTrace;
    Error.stackTraceLimit = stackTraceLimit;
  }
}

/**
 * Wraps the drivers and timers; call once, before the service starts (its intervals are set
 * when it boots).
 */
export function installOperationCounters(): void {
  if (installed) return;
  assertDriverMembers();
  installed = true;

  const query = Client.prototype.query as (...args: unknown[]) => unknown;
  (Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (
    this: Client,
    ...args: unknown[]
  ) {
    const name = (args[0] as { name?: unknown } | null)?.name;
    const at = tallyAtHand();
    // A sweep's claim counts once it is known to have claimed rows.
    const provisional =
      at && typeof name === 'string' && SWEEP_CLAIMS.has(name) ? emptyTally() : null;
    countStatement(this, args[0], provisional ?? at);
    const claimed = (answer: unknown) => {
      const rows = (answer as { rows?: unknown[] } | null | undefined)?.rows;
      if (!provisional || !at || !counting || !rows || rows.length === 0) return;
      addTally(at, provisional);
    };
    const ends = serviceWorkStarts();
    const settled = (answer?: unknown) => {
      claimed(answer);
      ends?.();
    };
    if (!ends && !provisional) return query.apply(this, args);
    return whenSettled(args, (sent) => query.apply(this, sent), settled);
  };

  const sendCommand = Redis.prototype.sendCommand as (...args: unknown[]) => unknown;
  (Redis.prototype as unknown as { sendCommand: (...args: unknown[]) => unknown }).sendCommand =
    function (this: Redis, ...args: unknown[]) {
      const at = tallyAtHand();
      if (at) {
        at.queueCommands += 1;
        at.sent.push(`redis: ${(args[0] as { name?: string }).name ?? '?'}`);
      }
      const ends = serviceWorkStarts();
      if (!ends) return sendCommand.apply(this, args);
      return whenSettled(args, (sent) => sendCommand.apply(this, sent), ends);
    };

  const workerMethods = Worker.prototype as unknown as Record<
    string,
    (...args: unknown[]) => Promise<unknown>
  >;
  const fetch = workerMethods._getNextJob;
  workerMethods._getNextJob = async function (this: Worker, ...args: unknown[]) {
    const attempt = emptyTally();
    const job = await context.run({ role: 'fetch', tally: attempt }, () => fetch.apply(this, args));
    if (job) {
      // A job brought is the service's work: the window waits for it like any other.
      serviceLastBusyAt = performance.now();
      if (counting) addTally(tally, attempt);
    }
    return job;
  };
  const stalledCheck = workerMethods.moveStalledJobsToWait;
  workerMethods.moveStalledJobsToWait = function (this: Worker, ...args: unknown[]) {
    return context.run({ role: 'background' }, () => stalledCheck.apply(this, args));
  };

  // Only the service's own intervals, those set by code under libs/: an interval a library
  // sets is left as it is, even when the service's code asked the library for it.
  const setIntervalAsIs = globalThis.setInterval;
  const setIntervalMutable = (
    callback: (...args: unknown[]) => void,
    ms?: number,
    ...args: unknown[]
  ) => {
    if (!/\/libs\/[a-z-]+\/src\//.test(callerFile(setIntervalMutable)))
      return setIntervalAsIs(callback, ms, ...args);
    return setIntervalAsIs(() => {
      if (!quiet) callback(...args);
    }, ms);
  };
  globalThis.setInterval = setIntervalMutable as typeof setInterval;
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

/** How long the service must have been still before a window opens and before it closes. */
const STILL_MS = 300;
/** How long a window waits for the service to be still before opening all the same. */
const OPEN_LIMIT_MS = 5_000;
/** How long a window waits for the operation's trailing work before closing all the same. */
const CLOSE_LIMIT_MS = 10_000;

/**
 * Counts what `operation` costs. It runs as the observer and resolves once the operation's work
 * is over (e.g. the merchant event written and the queue idle); what is still in flight then is
 * counted until the service has been still for STILL_MS.
 */
export async function countOperation(
  service: RunningService,
  dataSource: DataSource,
  operation: () => Promise<void>,
): Promise<OperationCounts> {
  quiet = true;
  try {
    const notes: string[] = [];
    if (!(await serviceStill(STILL_MS, OPEN_LIMIT_MS)))
      notes.push(`the service was still busy ${OPEN_LIMIT_MS} ms after the window was due to open`);
    return await observe(async () => {
      await flushCountersOfClientsSeen();
      const rowsBefore = await rowsWritten(dataSource);
      await service.sandbox.control.resetRequests();
      tally = emptyTally();
      counting = true;
      try {
        await operation();
        if (!(await serviceStill(STILL_MS, CLOSE_LIMIT_MS)))
          notes.push(`the service was still busy ${CLOSE_LIMIT_MS} ms after the operation ended`);
      } finally {
        counting = false;
      }
      const counted = tally;
      await flushCountersOfClientsSeen();
      const rowsAfter = await rowsWritten(dataSource);
      const { counts } = await service.sandbox.control.requests();
      const gatewayCalls: Record<string, number> = {};
      for (const [name, calls] of Object.entries(counts)) if (calls > 0) gatewayCalls[name] = calls;
      return { ...counted, rowsWritten: rowsAfter - rowsBefore, gatewayCalls, notes };
    });
  } finally {
    quiet = false;
  }
}
