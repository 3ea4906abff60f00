/** What the benchmark and fault scripts share: free ports, waiting, HTTP calls, app processes. */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { Agent, request } from 'node:http';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

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

/** Node's arguments that run one of our apps, as chosen above. */
export function appArgs(app: 'api' | 'worker' | 'sandbox'): string[] {
  if (FROM_SOURCE) return ['-r', '@swc-node/register', `apps/${app}/src/main.ts`];
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const script = scripts[`start:${app}`] ?? '';
  const entry = /node\s+(\S+\.js)/.exec(script)?.[1];
  if (!entry) throw new Error(`package.json script start:${app} does not run "node <file>.js"`);
  return [entry];
}

/** Builds the apps when their dist/ is missing or older than the sources (not for BENCH_FROM=source). */
export function buildIfNeeded(): void {
  if (FROM_SOURCE) return;
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
 * Starts a process a benchmark measures (`node <args>`): its stderr shown, a failed exit reported,
 * kept in `children` for the benchmark to stop at the end. BENCH_<NAME>_FLAGS adds node flags for
 * that one child (e.g. BENCH_API_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof"), `flags` the caller's.
 */
export function startMeasured(
  name: string,
  args: string[],
  env: Record<string, string>,
  children: ChildProcess[],
  flags: string[] = [],
): ChildProcess {
  const own = (process.env[`BENCH_${name.toUpperCase()}_FLAGS`] ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...own, ...flags, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  child.on('exit', (code) => {
    if (code !== null && code !== 0) process.stderr.write(`${name} exited with ${code}\n`);
  });
  children.push(child);
  return child;
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
