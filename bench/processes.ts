/**
 * What the benchmark and fault scripts share: free ports, waiting, HTTP calls, app processes and
 * the stores they write to.
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { Agent, request } from 'node:http';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';
import { dropQueuePrefix } from './queue-prefix';

export const ROOT = join(__dirname, '..');

export interface Answer {
  status: number;
  body: string;
}

const keptAlive = new Agent({ keepAlive: true, maxSockets: 512 });

/** One HTTP call; a JSON body is sent as JSON, a string as it is. Rejects on a transport error. */
export function call(
  url: string,
  method: string,
  options: {
    headers?: Record<string, string>;
    body?: unknown;
    agent?: Agent;
    timeoutMs?: number;
  } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const text =
      options.body === undefined
        ? undefined
        : typeof options.body === 'string'
          ? options.body
          : JSON.stringify(options.body);
    const headers: Record<string, string> = {
      ...(text !== undefined && typeof options.body !== 'string'
        ? { 'content-type': 'application/json' }
        : {}),
      ...options.headers,
    };
    const req = request(url, { method, headers, agent: options.agent ?? keptAlive }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
      );
      res.on('error', reject);
    });
    if (options.timeoutMs)
      req.setTimeout(options.timeoutMs, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(text);
  });
}

export const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });

/** `count` free ports, one after another. */
export async function freePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  for (let i = 0; i < count; i += 1) ports.push(await freePort());
  return ports;
}

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

export async function waitUntil(
  what: string,
  probe: () => Promise<boolean> | boolean,
  timeoutMs = 90_000,
  everyMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await Promise.resolve(probe()).catch(() => false)) return;
    await sleep(everyMs);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * The benchmarks measure what `npm start` and the image run, the built apps in dist/ (built first
 * when the sources are newer); `BENCH_FROM=source` runs them from TypeScript instead, which adds
 * the compiler's memory and its work at start to every figure.
 */
const FROM_SOURCE = process.env.BENCH_FROM === 'source';

type App = 'api' | 'worker' | 'sandbox';

/** Node's arguments that run one of our apps, as chosen above. */
export function appArgs(app: App): string[] {
  if (FROM_SOURCE) return ['-r', '@swc-node/register', `apps/${app}/src/main.ts`];
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const script = scripts[`start:${app}`] ?? '';
  const entry = /node\s+(\S+\.js)/.exec(script)?.[1];
  if (!entry) throw new Error(`package.json script start:${app} does not run "node <file>.js"`);
  return [entry];
}

let checkedBuild = false;

/**
 * Builds the apps when their dist/ is missing or older than the sources (not for
 * BENCH_FROM=source); once per run, before the first app starts.
 */
function buildIfNeeded(): void {
  if (FROM_SOURCE || checkedBuild) return;
  checkedBuild = true;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { needsBuild } = require('../scripts/run-support') as {
    needsBuild: (root: string, entries: string[]) => string | null;
  };
  const entries = (['api', 'worker', 'sandbox'] as const).map((app) => join(ROOT, appArgs(app)[0]));
  const reason = needsBuild(ROOT, entries);
  if (!reason) return;
  process.stderr.write(`building the apps (${reason}): npm run build\n`);
  const built = spawnSync('npm', ['run', 'build'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (built.status !== 0) throw new Error('npm run build failed');
}

/**
 * The processes a benchmark measures (`node <args>`): each one's stderr shown, a failed exit
 * reported, all stopped together at the end. BENCH_<NAME>_FLAGS adds node flags for one child
 * (e.g. BENCH_API_FLAGS=--trace-gc), `flagsFor` the benchmark's own (its profiling).
 */
export class MeasuredProcesses {
  private readonly children: ChildProcess[] = [];

  constructor(private readonly flagsFor: (name: string) => string[] = () => []) {}

  start(name: string, args: string[], env: Record<string, string>): ChildProcess {
    const own = (process.env[`BENCH_${name.toUpperCase()}_FLAGS`] ?? '').split(' ').filter(Boolean);
    const child = spawn(process.execPath, [...own, ...this.flagsFor(name), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('exit', (code) => {
      if (code !== null && code !== 0) process.stderr.write(`${name} exited with ${code}\n`);
    });
    this.children.push(child);
    return child;
  }

  /** One of our apps (built first when needed), named after it unless `name` says otherwise. */
  startApp(app: App, env: Record<string, string>, name: string = app): ChildProcess {
    buildIfNeeded();
    return this.start(name, appArgs(app), env);
  }

  /** The sandbox gateway on `port`, quiet, sending notifications without a pause between them. */
  startSandbox(port: number, env: Record<string, string> = {}): ChildProcess {
    return this.startApp('sandbox', {
      SANDBOX_PORT: String(port),
      SANDBOX_IPN_RATE_LIMIT_MS: '0',
      LOG_LEVEL: 'warn',
      ...env,
    });
  }

  /**
   * SIGTERM to each and back once all have exited (a profiled child writes its profile as it
   * exits), so nothing writes to the database or Redis after the run removes them; one still
   * running after `graceMs` is killed.
   */
  async stop(graceMs = 10_000): Promise<void> {
    this.signal('SIGTERM');
    const all = Promise.all(this.children.map(exited));
    if (await Promise.race([all.then(() => true), sleep(graceMs).then(() => false)])) return;
    this.signal('SIGKILL');
    await all;
  }

  /** For a run that failed: every process that still runs gets `signal`, without waiting. */
  signal(signal: NodeJS.Signals): void {
    for (const child of this.children) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    }
  }
}

/**
 * What a benchmark's apps write to: a database of its own, made fresh on BENCH_POSTGRES_URL, and a
 * queue prefix of its own (the database's name) on BENCH_REDIS_URL or REDIS_URL. `remove` drops
 * both once the processes have stopped.
 */
export class BenchStores {
  readonly databaseUrl: string;
  readonly queuePrefix: string;

  private constructor(
    postgresUrl: string,
    readonly database: string,
    readonly redisUrl: string,
    private readonly admin: Client,
  ) {
    this.databaseUrl = `${postgresUrl}/${database}`;
    this.queuePrefix = database;
  }

  /** A fresh database named pesapal_bench_<kind>_<time>. */
  static async create(kind: string): Promise<BenchStores> {
    const postgres = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432';
    const redis = process.env.BENCH_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    const database = `pesapal_bench_${kind}_${Date.now().toString(36)}`;
    const admin = new Client({ connectionString: `${postgres}/postgres` });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${database}"`);
    return new BenchStores(postgres, database, redis, admin);
  }

  /** Drops the database (unless `keepDatabase`) and every key under the queue prefix. */
  async remove(keepDatabase = false): Promise<void> {
    try {
      if (keepDatabase) {
        process.stdout.write(`kept database ${this.databaseUrl} (drop it when done)\n`);
      } else {
        await this.admin
          .query(`DROP DATABASE IF EXISTS "${this.database}" WITH (FORCE)`)
          .catch(() => undefined);
      }
      await dropQueuePrefix(this.redisUrl, this.queuePrefix).catch(() => undefined);
    } finally {
      await this.admin.end();
    }
  }
}

/** Runs one of our apps (or a script) from source, as `node -r @swc-node/register <args>`. */
export function startFromSource(
  args: string[],
  env: Record<string, string | undefined>,
  options: { flags?: string[]; stdio?: 'ignore' | 'inherit' | number } = {},
): ChildProcess {
  const output = options.stdio ?? 'inherit';
  return spawn(process.execPath, [...(options.flags ?? []), '-r', '@swc-node/register', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', output === 'inherit' ? 'ignore' : output, output],
  });
}

/** Resolves when the process has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}
