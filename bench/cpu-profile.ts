/**
 * Where a process's time went, from the V8 CPU profile a benchmark had it write (`--cpu-prof`):
 * each sample is given to the layer of its nearest frame in a package, in our code or in Node's
 * HTTP, crypto or async-context modules (a native call, such as a socket write, counts for the
 * code that made it), over the busiest window of the run (the load, not the start). V8 samples wall time while the thread runs, so a system call that
 * waits for a core shows in its caller's share: shares, not exact CPU.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeResults } from './results';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The layers a request passes through, by the package (or our folder) a frame's file is in. */
const LAYERS: [string, RegExp][] = [
  [
    'validation (class-validator, class-transformer)',
    /node_modules\/(class-validator|class-transformer|validator)\//,
  ],
  [
    'request logging (pino, pino-http, nestjs-pino)',
    /node_modules\/(pino|pino-http|nestjs-pino|@pinojs\/[^/]+|pino-std-serializers|fast-redact|sonic-boom)\//,
  ],
  [
    'Nest (core, common, middleware)',
    /node_modules\/(@nestjs\/[^/]+|@fastify\/middie|rxjs|path-to-regexp|reflect-metadata)\//,
  ],
  [
    'Fastify and its plugins',
    /node_modules\/(fastify|find-my-way|@fastify\/[^/]+|avvio|light-my-request|secure-json-parse|fast-json-stringify|fastify-plugin)\//,
  ],
  ['Redis client (ioredis)', /node_modules\/(ioredis|@ioredis\/[^/]+|redis-parser|bullmq)\//],
  [
    'PostgreSQL driver (pg), TypeORM',
    /node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-[^/]+|typeorm)\//,
  ],
  ['metrics (prom-client)', /node_modules\/prom-client\//],
  ['our code', /\/(dist|apps|libs|bench)\//],
  [
    'HTTP messages (node:http: requests, answers, parsing)',
    /^node:(_http_server|_http_incoming|_http_outgoing|_http_common|http)$/,
  ],
  ['gateway calls (node:http client)', /^node:(_http_client|_http_agent)$/],
  [
    'async context (async_hooks)',
    /^node:(async_hooks|internal\/async_hooks|internal\/async_local_storage)/,
  ],
  ['crypto', /^node:(crypto|internal\/crypto)/],
];

const GARBAGE = '(garbage collector)';
const IDLE = new Set(['(idle)', '(program)', '(root)']);

export interface ProfileShare {
  layer: string;
  share: number;
}

/** A frame's layer; null for Node's generic internals (streams, events, ticks), which count for
 * whoever called them (a socket write is the PostgreSQL driver's, or an HTTP answer's). */
function layerOf(url: string): string | null {
  if (!url) return null;
  for (const [layer, pattern] of LAYERS) if (pattern.test(url)) return layer;
  if (url.includes('node_modules/')) return 'other packages';
  if (url.startsWith('node:')) return null;
  return 'other';
}

const NODE_INTERNALS = 'Node.js internals (event loop, streams, timers)';

/**
 * Shares of the busiest `windowSeconds` of a profile that begins at least `skipSeconds` after
 * the profile does (the process's start: loading modules and starting Nest can be busier than
 * a light load), largest first (summing to 1).
 */
export function profileShares(
  file: string,
  windowSeconds: number,
  skipSeconds = 0,
): ProfileShare[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const layerOfNode = new Map<number, string>();
  const layerFor = (id: number): string => {
    const known = layerOfNode.get(id);
    if (known) return known;
    const node = byId.get(id) as ProfileNode;
    const name = node.callFrame.functionName;
    let layer: string;
    if (name === GARBAGE) layer = 'garbage collection';
    else {
      const own = layerOf(node.callFrame.url);
      const up = parent.get(id);
      layer = own ?? (up === undefined ? NODE_INTERNALS : layerFor(up));
    }
    layerOfNode.set(id, layer);
    return layer;
  };
  const busy = profile.samples.map((id) => !IDLE.has(byId.get(id)?.callFrame.functionName ?? ''));
  const times: number[] = [];
  let clock = profile.startTime;
  for (const delta of profile.timeDeltas) times.push((clock += delta));
  // The busiest window: the load, not the start or the idle end.
  const window = windowSeconds * 1e6;
  const from = profile.startTime + skipSeconds * 1e6;
  let best = 0;
  let bestStart = 0;
  let sum = 0;
  for (let i = 0, j = 0; i < times.length; i += 1) {
    if (busy[i]) sum += profile.timeDeltas[i];
    while (times[i] - times[j] > window) {
      if (busy[j]) sum -= profile.timeDeltas[j];
      j += 1;
    }
    if (times[j] >= from && sum > best) [best, bestStart] = [sum, j];
  }
  const totals = new Map<string, number>();
  let total = 0;
  for (let i = bestStart; i < times.length && times[i] - times[bestStart] <= window; i += 1) {
    if (!busy[i]) continue;
    const layer = layerFor(profile.samples[i]);
    totals.set(layer, (totals.get(layer) ?? 0) + profile.timeDeltas[i]);
    total += profile.timeDeltas[i];
  }
  return [...totals]
    .map(([layer, time]) => ({ layer, share: Number((time / total).toFixed(3)) }))
    .sort((a, b) => b.share - a.share);
}

/**
 * A benchmark's CPU profiling, as its environment asks. BENCH_PROFILE=1 has the `summarised`
 * children write V8 CPU profiles and records where their time went, layer by layer, in
 * bench/results/<bench>-profile.json instead of <bench>.json (a profiled run is slower, so its
 * figures do not replace the plain run's). BENCH_CPU_PROFILE_DIR=/dir keeps a profile of every
 * child there. `everyChild` profiles the other children too whenever profiles are written, so
 * that what the run sets beside the summarised ones (a bare route) pays the same.
 */
export class BenchProfiling {
  private readonly kept = process.env.BENCH_CPU_PROFILE_DIR;
  private readonly summary = process.env.BENCH_PROFILE === '1';
  private readonly dir =
    this.kept ?? (this.summary ? mkdtempSync(join(tmpdir(), 'bench-profile-')) : null);

  /** When each profiled child was started, and when the measured load began (epoch ms). */
  private readonly startedAt = new Map<string, number>();
  private loadBeganAt: number | null = null;

  constructor(
    private readonly bench: string,
    private readonly summarised: string[],
    private readonly everyChild = false,
  ) {}

  /** Node's flags for one child: none when it is not profiled. */
  readonly flagsFor = (name: string): string[] => {
    if (!this.dir) return [];
    if (!this.kept && !this.everyChild && !this.summarised.includes(name)) return [];
    this.startedAt.set(name, Date.now());
    return ['--cpu-prof', `--cpu-prof-dir=${this.dir}`, `--cpu-prof-name=${name}.cpuprofile`];
  };

  /** The measured load begins now: a summary's window is looked for from here on. */
  loadBegins(): void {
    this.loadBeganAt ??= Date.now();
  }

  /** The run's figures as bench/results/<bench>.json, unless the run is profiled for its summary. */
  recordRun(results: Record<string, unknown>): void {
    if (!this.summary) process.stdout.write(`results: ${writeResults(this.bench, results)}\n`);
  }

  /**
   * Once the children have exited: a summarised run's figures with each child's shares of the
   * busiest `windowSeconds`, as bench/results/<bench>-profile.json. The profiles go unless kept.
   */
  async recordProfile(results: Record<string, unknown>, windowSeconds: number): Promise<void> {
    if (!this.summary || !this.dir) return;
    const skipSeconds = (name: string): number => {
      const started = this.startedAt.get(name);
      return started === undefined || this.loadBeganAt === null
        ? 0
        : Math.max(0, (this.loadBeganAt - started) / 1000);
    };
    const profile = await readProfiles(
      this.dir,
      this.summarised,
      windowSeconds,
      skipSeconds,
      !this.kept,
    );
    const file = writeResults(`${this.bench}-profile`, { ...results, profile });
    process.stdout.write(`results: ${file}\n`);
  }
}

/** Each named child's shares (children that wrote no profile are left out); the directory goes
 * unless it is one the caller keeps. */
async function readProfiles(
  dir: string,
  names: string[],
  windowSeconds: number,
  skipSeconds: (name: string) => number,
  remove = true,
): Promise<Record<string, ProfileShare[]>> {
  const shares: Record<string, ProfileShare[]> = {};
  // A child writes its profile as it exits: give the last of them a moment.
  for (let waited = 0; waited < 5000; waited += 250) {
    if (names.every((name) => existsSync(join(dir, `${name}.cpuprofile`)))) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  for (const name of names) {
    const file = join(dir, `${name}.cpuprofile`);
    if (existsSync(file)) shares[name] = profileShares(file, windowSeconds, skipSeconds(name));
  }
  if (remove) rmSync(dir, { recursive: true, force: true });
  return shares;
}
