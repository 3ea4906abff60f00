/**
 * Checkout load: hosted checkouts through the service (POST /v1/checkouts) at rising concurrency,
 * beside SubmitOrderRequest sent straight to the sandbox in the same run, so the difference is
 * what the service adds (validation, two Postgres transactions, the gateway client).
 *
 *   npm run bench:checkout                     # 1, 8, 32, 64 concurrent, 3 stages of 5 s each
 *   BENCH_LEVELS=1,16 BENCH_SECONDS=3 BENCH_ROUNDS=5 npm run bench:checkout
 *
 * Beside both, the same checkouts through bench/floor-checkout.ts, the floor: one framework-free
 * route with the same two statements and gateway call and nothing else, so the service's own
 * cost shows against what any integration must spend (BENCH_FLOOR=0 leaves it out). It prints
 * the service ÷ floor ratios against the goals (docs/benchmarks.md).
 *
 * Before the stages, the service and the floor each take checkouts for BENCH_WARM_SECONDS (10 by
 * default): a long-running process's cost per checkout is what it spends once its JIT has
 * settled, and on a two-core machine the api's takes about five seconds of load to (the floor's,
 * a tenth of the code, about one). Each measured stage is then preceded by the same load on its
 * contender, not counted (BENCH_REWARM_SECONDS): it comes back from the idle time the other's
 * stage gave it.
 *
 * BENCH_PROFILE=1 has the api and the floor write V8 CPU profiles and puts where their time went,
 * layer by layer, in bench/results/checkout-profile.json (the page's profile table); a profiled
 * run is slower, so its figures do not replace checkout.json's. BENCH_CPU_PROFILE_DIR=/tmp/x keeps
 * a profile of each child there (bench/cpu-profile.ts).
 *
 * Starts its own sandbox and api (child processes: the built apps, built first when needed;
 * BENCH_FROM=source runs them through @swc-node/register) on a fresh database on Postgres at
 * 127.0.0.1:5432 (or BENCH_POSTGRES_URL) and a queue prefix of its own on Redis (BENCH_REDIS_URL or
 * REDIS_URL), both removed once the processes have exited.
 * Everything shares this machine's cores with the load generator: compare columns, not machines.
 */
import { randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import {
  benchRounds,
  costPer,
  cpuMs,
  databaseCounters,
  databaseWorkPer,
  groupCpuMs,
  medians,
  peakRssMiB,
  settledReading,
} from './counters';
import { BenchStores, call, freePorts, MeasuredProcesses, waitUntil } from './processes';
import { BenchProfiling } from './cpu-profile';
import { ratioLines } from './floor-goals';

const LEVELS = (process.env.BENCH_LEVELS ?? '1,8,32,64').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARM_SECONDS = Number(process.env.BENCH_WARM_SECONDS ?? 10);
/**
 * Seconds of checkouts at the stage's concurrency, not counted, that the contender of each
 * measured stage takes right before it (BENCH_REWARM_SECONDS, a stage's length by default; 0
 * leaves it out): while the other's stage runs it sits idle, and a full GC of an idle process
 * throws away optimised code whose objects it collected, which its next stage would pay for again.
 */
const REWARM_SECONDS = Number(process.env.BENCH_REWARM_SECONDS ?? SECONDS);
const ROUNDS = benchRounds();
const SHOP_KEY = `bench_${randomBytes(8).toString('hex')}`;
const WITH_FLOOR = process.env.BENCH_FLOOR !== '0';
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const profiling = new BenchProfiling('checkout', ['api', 'floor']);
const processes = new MeasuredProcesses(profiling.flagsFor);

const send = (url: string, method: string, headers: Record<string, string>, body?: string) =>
  call(url, method, { headers, body, agent });

const waitUntilUp = (url: string): Promise<void> =>
  waitUntil(url, async () => (await send(url, 'GET', {})).status < 500, 60_000, 250);

interface Result {
  requests: number;
  errors: number;
  perSecond: number;
  p50: number;
  p99: number;
}

/** Keeps `concurrency` requests in flight for `seconds`; latency per request in ms. */
async function load(concurrency: number, seconds: number, one: () => Promise<boolean>) {
  const samples: number[] = [];
  let errors = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const t = performance.now();
        const ok = await one().catch(() => false);
        samples.push(performance.now() - t);
        if (!ok) errors += 1;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  return {
    requests: samples.length,
    errors,
    perSecond: samples.length / elapsed,
    p50: at(0.5),
    p99: at(0.99),
  } satisfies Result;
}

interface Stage {
  result: Result;
  perOperation: {
    commits: number;
    rows_inserted: number;
    rows_updated: number;
    cpu_ms_process: number;
    cpu_ms_postgres: number;
  };
}

/** Each figure's median over the stages; requests and errors are summed (none may hide). */
function medianStage(stages: Stage[]): Stage {
  const { perSecond, p50, p99 } = medians(
    stages.map(({ result }) => ({ perSecond: result.perSecond, p50: result.p50, p99: result.p99 })),
  );
  return {
    result: {
      requests: stages.reduce((sum, stage) => sum + stage.result.requests, 0),
      errors: stages.reduce((sum, stage) => sum + stage.result.errors, 0),
      perSecond,
      p50,
      p99,
    },
    perOperation: medians(stages.map((stage) => stage.perOperation)),
  };
}

let sequence = 0;
const reference = () => `bench-${process.pid}-${(sequence += 1)}`;

async function main(): Promise<void> {
  let results: Record<string, unknown> | null = null;
  const stores = await BenchStores.create('checkout');
  const [sandboxPort, apiPort, floorPort] = await freePorts(3);
  const sandboxOrigin = `http://127.0.0.1:${sandboxPort}`;
  const gateway = `${sandboxOrigin}/pesapalv3/api`;
  const api = `http://127.0.0.1:${apiPort}`;
  const floor = `http://127.0.0.1:${floorPort}`;
  try {
    processes.startSandbox(sandboxPort);
    const apiProcess = processes.startApp('api', {
      NODE_ENV: 'development',
      PORT: String(apiPort),
      DATABASE_URL: stores.databaseUrl,
      REDIS_URL: stores.redisUrl,
      QUEUE_PREFIX: stores.queuePrefix,
      PESAPAL_BASE_URL: gateway,
      PUBLIC_BASE_URL: api,
      SHOP_API_KEYS: `bench:${SHOP_KEY}`,
      ADMIN_API_KEYS: `bench-admin:admin_${SHOP_KEY}`,
      IPN_PATH_SECRET: 'bench-ipn-secret',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    });
    await waitUntilUp(`${gateway}/Auth/RequestToken`);
    await waitUntilUp(`${api}/health/live`);

    const json = { 'content-type': 'application/json' };
    const token = JSON.parse(
      (
        await send(
          `${gateway}/Auth/RequestToken`,
          'POST',
          json,
          JSON.stringify({
            consumer_key: 'sandbox-consumer-key',
            consumer_secret: 'sandbox-consumer-secret',
          }),
        )
      ).body,
    ).token as string;
    const bearer = { ...json, authorization: `Bearer ${token}` };
    const ipnId = JSON.parse(
      (
        await send(
          `${gateway}/URLSetup/RegisterIPN`,
          'POST',
          bearer,
          JSON.stringify({ url: `${api}/v1/ipn/bench`, ipn_notification_type: 'POST' }),
        )
      ).body,
    ).ipn_id as string;

    const direct = async () => {
      const answer = await send(
        `${gateway}/Transactions/SubmitOrderRequest`,
        'POST',
        bearer,
        `{"amount":1500.00,"id":"${reference()}","currency":"KES","description":"bench","callback_url":"${api}/v1/checkouts/return","notification_id":"${ipnId}","billing_address":{"email_address":"bench@example.com"}}`,
      );
      return answer.status === 200 && answer.body.includes('redirect_url');
    };
    const shopHeaders = { ...json, authorization: `Bearer ${SHOP_KEY}` };
    const checkoutAt = (origin: string) => async () => {
      const answer = await send(
        `${origin}/v1/checkouts`,
        'POST',
        shopHeaders,
        JSON.stringify({
          amount: '1500.00',
          currency: 'KES',
          description: 'bench',
          reference: reference(),
          customer: { email: 'bench@example.com' },
        }),
      );
      return answer.status === 201;
    };
    const checkout = checkoutAt(api);
    const floorCheckout = checkoutAt(floor);
    // After the api: its migrations made the tables.
    const floorProcess = WITH_FLOOR
      ? processes.start('floor', ['-r', '@swc-node/register', 'bench/floor-checkout.ts'], {
          PORT: String(floorPort),
          DATABASE_URL: stores.databaseUrl,
          GATEWAY_URL: gateway,
          GATEWAY_TOKEN: token,
          IPN_ID: ipnId,
          SHOP_KEY,
          CALLBACK_URL: `${api}/v1/checkouts/return`,
        })
      : undefined;
    if (floorProcess) await waitUntilUp(`${floor}/health`);

    // Warm them all (JIT, connection pools, the IPN registration, the token), the service and
    // the floor alike.
    await load(8, WARM_SECONDS, checkout);
    await load(8, 1, direct);
    if (floorProcess) await load(8, WARM_SECONDS, floorCheckout);

    const rows: string[] = [];
    const perCheckout: string[] = [];
    const floorRows: string[] = [];
    const levels: Record<string, unknown>[] = [];
    const f = (n: number) => n.toFixed(1).padStart(7);
    const counters = new Client({ connectionString: stores.databaseUrl });
    await counters.connect();
    const workSoFar = async (pid: number) => ({
      database: await databaseCounters(counters, stores.database),
      app: cpuMs(pid),
      postgres: groupCpuMs('postgres'),
    });
    /** One stage between settled counters: its result and its work per checkout. */
    const stage = async (
      concurrency: number,
      pid: number,
      one: () => Promise<boolean>,
    ): Promise<Stage> => {
      if (REWARM_SECONDS > 0) await load(concurrency, REWARM_SECONDS, one);
      const before = await settledReading(() => workSoFar(pid));
      const result = await load(concurrency, SECONDS, one);
      const after = await settledReading(() => workSoFar(pid));
      const each = (a: number, b: number, digits = 2) => costPer(a, b, result.requests, digits);
      const perOperation = {
        ...databaseWorkPer(before.database, after.database, result.requests),
        cpu_ms_process: Number(each(before.app, after.app, 3)),
        cpu_ms_postgres: Number(each(before.postgres, after.postgres, 3)),
      };
      return { result, perOperation };
    };
    /** The level's stages of the service and of the floor, alternated, each as their medians. */
    const measuredLevel = async (concurrency: number) => {
      const service: Stage[] = [];
      const atFloor: Stage[] = [];
      const runService = async () =>
        service.push(await stage(concurrency, apiProcess.pid as number, checkout));
      const runFloor = async () => {
        if (floorProcess)
          atFloor.push(await stage(concurrency, floorProcess.pid as number, floorCheckout));
      };
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const run of round % 2 === 0 ? [runService, runFloor] : [runFloor, runService]) {
          await run();
        }
      }
      return { service: medianStage(service), floor: atFloor.length ? medianStage(atFloor) : null };
    };
    const workLine = ({ perOperation: work }: Stage) =>
      `${work.commits.toFixed(2)} commits, ${work.rows_inserted.toFixed(2)} inserted, ` +
      `${work.rows_updated.toFixed(2)} updated | CPU ms: app ${work.cpu_ms_process.toFixed(3)}, ` +
      `PostgreSQL ${work.cpu_ms_postgres.toFixed(3)}`;
    const figures = (result: Result) => ({
      per_second: Math.round(result.perSecond),
      p50_ms: Number(result.p50.toFixed(2)),
      p99_ms: Number(result.p99.toFixed(2)),
      errors: result.errors,
    });
    profiling.loadBegins();
    for (const concurrency of LEVELS) {
      const gatewayOnly = await load(concurrency, SECONDS, direct);
      const measured = await measuredLevel(concurrency);
      const service = measured.service.result;
      const level: Record<string, unknown> = {
        concurrency,
        service: { ...figures(service), ...measured.service.perOperation },
        gateway_alone: figures(gatewayOnly),
      };
      levels.push(level);
      perCheckout.push(`${String(concurrency).padStart(5)} | ${workLine(measured.service)}`);
      rows.push(
        `${String(concurrency).padStart(5)} | ${f(service.perSecond)} ${f(service.p50)} ${f(service.p99)} ${String(service.errors).padStart(5)} | ${f(gatewayOnly.perSecond)} ${f(gatewayOnly.p50)} ${f(gatewayOnly.p99)} | ${f(service.p50 - gatewayOnly.p50)}`,
      );
      process.stdout.write(`${rows.at(-1)}\n`);
      const atFloor = measured.floor;
      if (atFloor) {
        level.floor = { ...figures(atFloor.result), ...atFloor.perOperation };
        floorRows.push(
          `${String(concurrency).padStart(5)} | ${f(atFloor.result.perSecond)} ${f(atFloor.result.p50)} ${f(atFloor.result.p99)} ${String(atFloor.result.errors).padStart(5)} | ${workLine(atFloor)}`,
        );
        process.stdout.write(`${floorRows.at(-1)}\n`);
      }
    }
    process.stdout.write(
      [
        '',
        `checkouts through the service vs SubmitOrderRequest straight to the sandbox, ${SECONDS} s per stage, medians of ${ROUNDS} stages alternated with the floor's`,
        'conc. | service: req/s  p50 ms  p99 ms  errs | sandbox: req/s  p50 ms  p99 ms | added p50 ms',
        ...rows,
        '',
        'per checkout through the service (PostgreSQL counters of the bench database, CPU of the api and of PostgreSQL)',
        ...perCheckout,
        `peak RSS of the api: ${peakRssMiB(apiProcess.pid as number).toFixed(0)} MiB`,
        ...(floorProcess
          ? [
              '',
              'the floor: the same checkouts through bench/floor-checkout.ts (two statements, one gateway call, no framework)',
              'conc. | req/s  p50 ms  p99 ms  errs | per checkout (CPU of the floor process and of PostgreSQL)',
              ...floorRows,
              `peak RSS of the floor process: ${peakRssMiB(floorProcess.pid as number).toFixed(0)} MiB`,
            ]
          : []),
        '',
      ].join('\n'),
    );
    process.stdout.write(`${ratioLines('checkout', levels).join('\n')}\n`);
    results = {
      seconds_per_level: SECONDS,
      rounds: ROUNDS,
      levels,
      peak_rss_mib: {
        api: Math.round(peakRssMiB(apiProcess.pid as number)),
        ...(floorProcess ? { floor: Math.round(peakRssMiB(floorProcess.pid as number)) } : {}),
      },
    };
    profiling.recordRun(results);
    await counters.end();
  } finally {
    agent.destroy();
    await processes.stop();
    await stores.remove();
  }
  if (results) await profiling.recordProfile(results, SECONDS);
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  processes.signal('SIGTERM');
  process.exit(1);
});
