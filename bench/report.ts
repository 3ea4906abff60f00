/**
 * `npm run bench:report`: docs/benchmarks.md, made from the latest results each benchmark wrote
 * to bench/results/*.json. A test fails when the page differs from what this makes of them.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  API_ALONE_SHARE,
  checkoutGoals,
  goalTable,
  ipnGoals,
  storedFloorRates,
} from './floor-goals';
import {
  BudgetedOperation,
  OPERATION_BUDGETS,
  OPERATION_MEANINGS,
  QueueBackendName,
  UNPAID_ORDER_LOOKUPS_BUDGET,
  UNPAID_ORDER_LOOKUPS_GOAL,
} from './operation-budgets';

const ROOT = join(__dirname, '..');
const RESULTS = join(ROOT, 'bench', 'results');
export const BENCHMARKS_PAGE = join(ROOT, 'docs', 'benchmarks.md');

type Json = Record<string, unknown>;

function load(name: string): Json | null {
  const file = join(RESULTS, `${name}.json`);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Json) : null;
}

const n = (value: unknown, digits = 1): string =>
  typeof value === 'number'
    ? value.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: 0 })
    : '—';
const ratio = (a: unknown, b: unknown): string =>
  typeof a === 'number' && typeof b === 'number' && b !== 0 ? n(a / b, 2) : '—';

function ranOn(result: Json): string {
  const machine = (result.machine ?? {}) as Json;
  const settings = Object.entries((result.settings ?? {}) as Record<string, string>)
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
  return (
    `Latest run: ${String(result.at).slice(0, 10)}, on ${String(machine.cores)} cores ` +
    `(${String(machine.cpu)}), ${String(machine.memory_gib)} GiB, Node ${String(machine.node)}, ` +
    `${String(machine.postgres)}, ${String(machine.redis).replace(/ sha=.*$/, '')}` +
    (settings ? `; settings: \`${settings}\`` : '') +
    '.'
  );
}

function checkoutSection(result: Json | null): string[] {
  const lines = ['## Checkouts (`npm run bench:checkout`)', ''];
  lines.push(
    'Hosted checkouts through `POST /v1/checkouts` at each concurrency for a few seconds, beside',
    '`SubmitOrderRequest` sent straight to the sandbox (what the gateway call alone costs) and the',
    'floor (`bench/floor-checkout.ts`: one framework-free route with the same two statements and the',
    'same gateway call). Per checkout: commits and rows of the bench database, CPU of the serving',
    'process and of PostgreSQL. The service and the floor run in alternated stages at each',
    'concurrency (`BENCH_ROUNDS`, 3 by default: service then floor, floor then service, ...), and',
    'each figure is the median of its stages. Both are warmed first with checkouts for',
    '`BENCH_WARM_SECONDS` (10 by default): the figures are those of a process whose JIT has',
    'settled, as a long-running one has. Each measured stage comes right after the same load on',
    'its contender, not counted (`BENCH_REWARM_SECONDS`, a stage by default): while the other',
    "contender's stage runs, a process sits idle, and a full GC of an idle process throws away",
    'optimised code whose objects it collected, which its next stage would pay for again.',
    '',
  );
  if (!result) return [...lines, 'No run recorded yet.', ''];
  lines.push(ranOn(result), '');
  lines.push(
    '| concurrency | service req/s | p50 / p99 ms | gateway alone req/s | floor req/s | p50 / p99 ms | service ÷ floor req/s |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  const levels = (result.levels ?? []) as Json[];
  for (const level of levels) {
    const service = level.service as Json;
    const gateway = level.gateway_alone as Json;
    const floor = (level.floor ?? {}) as Json;
    lines.push(
      `| ${String(level.concurrency)} | ${n(service.per_second, 0)} | ${n(service.p50_ms)} / ${n(service.p99_ms)} | ${n(gateway.per_second, 0)} | ${n(floor.per_second, 0)} | ${n(floor.p50_ms)} / ${n(floor.p99_ms)} | ${ratio(service.per_second, floor.per_second)} |`,
    );
  }
  lines.push(
    '',
    '| per checkout, concurrency | commits | rows inserted / updated | CPU ms: api / PostgreSQL | floor CPU ms: process / PostgreSQL | api ÷ floor CPU |',
    '| ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const level of levels) {
    const service = level.service as Json;
    const floor = (level.floor ?? {}) as Json;
    lines.push(
      `| ${String(level.concurrency)} | ${n(service.commits, 2)} | ${n(service.rows_inserted, 2)} / ${n(service.rows_updated, 2)} | ${n(service.cpu_ms_process, 2)} / ${n(service.cpu_ms_postgres, 2)} | ${n(floor.cpu_ms_process, 2)} / ${n(floor.cpu_ms_postgres, 2)} | ${ratio(service.cpu_ms_process, floor.cpu_ms_process)} |`,
    );
  }
  const rss = (result.peak_rss_mib ?? {}) as Json;
  lines.push('', `Peak RSS: api ${n(rss.api, 0)} MiB, floor ${n(rss.floor, 0)} MiB.`, '');
  return lines;
}

function ipnSection(result: Json | null): string[] {
  const lines = ['## Notifications (`npm run bench:ipn`)', ''];
  lines.push(
    'Distinct orders paid at the sandbox, their notifications fired at the IPN route open loop at',
    'each rate (with duplicates), the api, the worker and the sandbox running; beside a bare Fastify',
    'route answering the same acknowledgement, and at the first rate the floor',
    '(`bench/floor-ipn.ts`: store, acknowledge after the commit, look up once per order, apply',
    'once, in one framework-free process), and the split floor: the same work split as the service',
    "splits it, with no framework (the floor's `/ipn/split` stores, acknowledges and signals in one",
    'statement; `bench/floor-ipn-worker.ts` listens, gathers the rows as the relay does and queues',
    'them 100 to a BullMQ job, and its worker looks up and applies as the floor does). "Final" is',
    'when every order is settled after',
    'the last notification was sent. At the first rate the service and the floors run in alternated stages',
    '(`BENCH_ROUNDS`, 3 by default), each on orders of its own: the work per notification is the',
    "stage's at the median of the CPU (api and worker together; the floor's own), the latencies",
    'and finality the medians, lost acknowledgements and doubled orders the sums. Every',
    "notification comes from the generator's one address, so the api's per-address ceiling",
    '(`RATE_LIMIT_IPN_PER_MINUTE`) is raised out of the way for the run: it still counts each.',
    'Before the stages the service, the floor and the split floor each settle',
    '`BENCH_WARM_NOTIFICATIONS` (2,000 by default) sent at 500/s, so that every process has',
    'settled its JIT and no warm-up work is left over to count in a stage. Each measured stage of',
    'the first rate comes right after the same load on its contender, not counted',
    "(`BENCH_REWARM_SECONDS`, a stage by default): while the others' stages run, a process sits",
    'idle, and a full GC of an idle process throws away optimised code whose objects it',
    'collected, which its next stage would pay for again.',
    '',
  );
  if (!result) return [...lines, 'No run recorded yet.', ''];
  lines.push(ranOn(result), '');
  lines.push(
    '| offered | service acks/s | p50 / p99 ms | bare route acks/s | p50 / p99 ms |',
    '| ---: | ---: | ---: | ---: | ---: |',
  );
  const rates = (result.rates ?? []) as Json[];
  for (const rate of rates) {
    const service = rate.service as Json;
    const bare = rate.bare_route as Json;
    lines.push(
      `| ${n(rate.rate, 0)}/s | ${n(service.per_second, 0)} | ${n(service.p50_ms)} / ${n(service.p99_ms)} | ${n(bare.per_second, 0)} | ${n(bare.p50_ms)} / ${n(bare.p99_ms)} |`,
    );
  }
  for (const alone of (result.api_alone ?? []) as Json[]) {
    // A ramped run fired the bare route at each of these rates too.
    const bare = alone.bare_route as Json | undefined;
    const bareCells = bare
      ? `${n(bare.per_second, 0)} | ${n(bare.p50_ms)} / ${n(bare.p99_ms)}`
      : '|';
    lines.push(
      `| ${n(alone.rate, 0)}/s, worker paused | ${n(alone.per_second, 0)} | ${n(alone.p50_ms)} / ${n(alone.p99_ms)} | ${bareCells} |`,
    );
  }
  const ramp = result.api_alone_ramp as Json | undefined;
  const aloneGoal = ipnGoals(result).find((check) => check.measure.startsWith('the api alone'));
  if (ramp && aloneGoal) {
    // What the api answered at its busiest, whatever the latency: its capacity beside the goal's.
    const alones = (result.api_alone ?? []) as Json[];
    const busiest = Math.max(...alones.map((alone) => Number(alone.per_second)));
    const bareBusiest = Math.max(
      ...alones.map((alone) => Number((alone.bare_route as Json | undefined)?.per_second ?? 0)),
    );
    // Lower rates where the api missed the mark in the same run: the highest pass is not a floor.
    const missedBelow = alones.filter(
      (alone) =>
        Number(alone.rate) < Number(aloneGoal.service) &&
        (Number(alone.p99_ms) > 25 || Number(alone.ok) < Number(alone.sent)),
    );
    const misses =
      missedBelow.length === 0
        ? ''
        : ` Below it the api missed the mark at ${missedBelow.map((alone) => `${n(alone.rate, 0)}/s (p99 ${n(alone.p99_ms)} ms)`).join(' and ')}: on this machine its p99 swings with the load beside it.`;
    lines.push(
      '',
      `The api alone (the worker paused) and the bare route, at rates from ${n(ramp.from, 0)}/s times ${String(ramp.factor)} (at each, ${ramp.rounds === undefined ? 'one stage of each' : `${n(ramp.rounds, 0)} stages of each, alternated, their medians`}${ramp.rewarm_seconds ? `; each stage right after the same load on its contender, not counted, as at the first rate` : ''}) ${ramp.capped ? `up to ${n(ramp.max, 0)}/s (the bare route still met the mark there: raise BENCH_ALONE_MAX)` : `until the bare route's p99 passed 25 ms (or it lost one) at ${n(ramp.misses, 0)} steps running`}: the highest rate acknowledged in full with p99 ≤ 25 ms is ${n(aloneGoal.service, 0)}/s for the api, ${n(aloneGoal.floor, 0)}/s for the bare route, ${aloneGoal.figure}× (goal ${aloneGoal.goal}).${misses} At any latency the api answered at most ${n(busiest, 0)}/s, the bare route ${n(bareBusiest, 0)}/s.`,
    );
    const stored = storedFloorRates(result);
    if (stored) {
      const share = aloneGoal.floor > 0 ? stored.within25ms / aloneGoal.floor : 0;
      lines.push(
        '',
        `What the api alone must do, without a framework: the floor's store-and-acknowledge route (\`bench/floor-ipn.ts\` \`/ipn/stored\`: each notification stored, its INSERT batched as the api batches its own, and answered after the commit, as the api may not acknowledge what it has not stored), fired in the same stages, acknowledged in full with p99 ≤ 25 ms up to ${n(stored.within25ms, 0)}/s, ${share.toFixed(2)}× the bare route's; at any latency it answered at most ${n(stored.busiest, 0)}/s.`,
      );
      const unflushed = storedFloorRates(result, 'unflushed_floor');
      if (unflushed) {
        lines.push(
          '',
          `The same route committing without waiting for the disk (\`/ipn/unflushed\`, a trial and never a design: a crash could lose what it acknowledged), in the same stages: p99 ≤ 25 ms up to ${n(unflushed.within25ms, 0)}/s, ${(aloneGoal.floor > 0 ? unflushed.within25ms / aloneGoal.floor : 0).toFixed(2)}× the bare route's; at any latency at most ${n(unflushed.busiest, 0)}/s. Between the two is what waiting for the disk adds.`,
        );
      }
      if (share < API_ALONE_SHARE) {
        // The api's durable store alone, without the framework, missed the goal itself.
        const unflushedShare =
          unflushed && aloneGoal.floor > 0 ? unflushed.within25ms / aloneGoal.floor : 0;
        const withoutTheDisk = !unflushed
          ? ''
          : unflushedShare >= API_ALONE_SHARE
            ? ' The same route meets it once its commit does not wait for the disk, a wait an acknowledgement that may not be lost cannot skip.'
            : ' So does the same route when its commit does not wait for the disk.';
        lines.push(
          '',
          `In this run the storing floor itself misses the goal: each notification committed to PostgreSQL before it is acknowledged, as the service must so that a fault loses none, with no framework around it and batched as the api batches.${withoutTheDisk}`,
        );
      }
      lines.push(...coresAtGoalRate(result, aloneGoal.floor * API_ALONE_SHARE));
    }
  }
  const first = rates[0];
  if (first?.per_notification) {
    const work = first.per_notification as Json;
    const floor = (first.floor ?? {}) as Json;
    const serviceCpu = Number(work.cpu_ms_api) + Number(work.cpu_ms_worker);
    lines.push(
      '',
      `At ${n(first.rate, 0)}/s: every order final ${n(first.final_after_last_s, 2)} s after the last notification; ${n(first.lost_acks, 0)} acknowledgements lost, ${n(first.doubled, 0)} orders changed twice, ${n(first.stored, 0)} notifications stored.`,
      '',
      '| per notification | commits | rows inserted / updated | CPU ms | ack p99 ms | final after the last |',
      '| --- | ---: | ---: | ---: | ---: | ---: |',
      `| service | ${n(work.commits, 2)} | ${n(work.rows_inserted, 2)} / ${n(work.rows_updated, 2)} | ${n(serviceCpu, 2)} (api ${n(work.cpu_ms_api, 2)}, worker ${n(work.cpu_ms_worker, 2)}; PostgreSQL ${n(work.cpu_ms_postgres, 2)}) | ${n((first.service as Json).p99_ms)} | ${n(first.final_after_last_s, 2)} s |`,
      `| floor | ${n(floor.commits, 2)} | ${n(floor.rows_inserted, 2)} / ${n(floor.rows_updated, 2)} | ${n(floor.cpu_ms_floor, 2)} (PostgreSQL ${n(floor.cpu_ms_postgres, 2)}) | ${n(floor.ack_p99_ms)} | ${n(floor.final_after_last_s, 2)} s |`,
      `| service ÷ floor | | ${ratio(Number(work.rows_inserted) + Number(work.rows_updated), Number(floor.rows_inserted) + Number(floor.rows_updated))} (rows) | ${ratio(serviceCpu, floor.cpu_ms_floor)} | ${ratio((first.service as Json).p99_ms, floor.ack_p99_ms)} | |`,
      ...splitFloorRows(first, serviceCpu),
      '',
      `Peak RSS: api ${n(work.peak_rss_mib_api, 0)} MiB, worker ${n(work.peak_rss_mib_worker, 0)} MiB.`,
    );
  }
  lines.push('');
  return lines;
}

/**
 * Where the machine's cores went at the ramp's first step at or above the rate the api-alone goal
 * asks for (half the bare route's): the bare route, the api and the storing floor, each in its
 * own stages. Runs that did not read the cores show nothing.
 */
function coresAtGoalRate(result: Json, goalRate: number): string[] {
  const step = ((result.api_alone ?? []) as Json[]).find(
    (alone) => Number(alone.rate) >= goalRate && alone.cores !== undefined,
  );
  if (!step) return [];
  const row = (name: string, stage: Json | undefined) => {
    const cores = stage?.cores as Json | undefined;
    if (!stage || !cores) return [];
    return [
      `| ${name} | ${n(stage.per_second, 0)} | ${n(stage.p99_ms)} | ${n(cores.answering, 2)} | ${n(cores.postgres, 2)} | ${n(cores.generator, 2)} | ${n(cores.machine, 2)} |`,
    ];
  };
  const machine = result.machine as Json;
  return [
    '',
    `At ${n(step.rate, 0)}/s, the first step at or above the ${n(goalRate, 0)}/s the goal asks for, where the ${String(machine.cores)} cores went (CPU ms per ms of the stage, the median stage of each):`,
    '',
    '| answered by | acks/s | p99 ms | its process | PostgreSQL | load generator | whole machine |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...row('bare route', step.bare_route as Json),
    ...row('storing floor', step.stored_floor as Json | undefined),
    ...row('storing floor, unflushed (trial)', step.unflushed_floor as Json | undefined),
    ...row('api alone', step),
  ];
}

/**
 * The split floor's rows under the notifications table (runs before it recorded none): the
 * service's own design, an api that stores and a worker that verifies through a queue, with no
 * framework, and where the service stands against it.
 */
function splitFloorRows(first: Json, serviceCpu: number): string[] {
  const split = first.split_floor as Json | undefined;
  if (!split) return [];
  const splitCpu = Number(split.cpu_ms_api) + Number(split.cpu_ms_worker);
  return [
    `| split floor | ${n(split.commits, 2)} | ${n(split.rows_inserted, 2)} / ${n(split.rows_updated, 2)} | ${n(splitCpu, 2)} (api half ${n(split.cpu_ms_api, 2)}, worker half ${n(split.cpu_ms_worker, 2)}; PostgreSQL ${n(split.cpu_ms_postgres, 2)}) | ${n(split.ack_p99_ms)} | ${n(split.final_after_last_s, 2)} s |`,
    `| service ÷ split floor | | | ${ratio(serviceCpu, splitCpu)} | ${ratio((first.service as Json).p99_ms, split.ack_p99_ms)} | |`,
  ];
}

function dataSection(result: Json | null): string[] {
  const lines = ['## A year of data (`npm run bench:data`)', ''];
  lines.push(
    'Orders made through the API as a shop makes them (paid and declined, hosted and push, some',
    'refunded), verified by the worker; then copied, with their timelines, attempts, notifications,',
    "merchant events and refunds, each copy another customer's order dated over the year before, as",
    'the worker would have left it (unpaid ones expired, accepted refunds reversed). Each call is the',
    'median of repeated calls on the small database and on the grown one; the target is at most',
    'twice the small median or 25 ms, whichever is larger; the overview (`admin overview`), whose',
    'windows are empty on the small database and full on the grown one, must answer in under',
    "100 ms. Before the grown database is measured, its history is summed into the overview's",
    "hourly totals as on a database migrated with a year in it (the worker's minute job, from the",
    'oldest order). Then retention runs with its defaults.',
    '',
  );
  if (!result) return [...lines, 'No run recorded yet.', ''];
  lines.push(ranOn(result), '');
  const orders = (result.orders ?? {}) as Json;
  lines.push(
    `| call | ${n(orders.small, 0)} orders (ms) | ${n(orders.large, 0)} orders (ms) | ratio | after retention (ms) | within target |`,
    '| --- | ---: | ---: | ---: | ---: | --- |',
  );
  for (const call of (result.calls ?? []) as Json[]) {
    lines.push(
      `| ${String(call.call)} | ${n(call.small_ms, 2)} | ${n(call.large_ms, 2)} | ${n(call.ratio, 2)} | ${n(call.after_retention_ms, 2)} | ${call.within_target ? 'yes' : '**no**'} |`,
    );
  }
  const idle = (result.idle_cpu_ms_per_minute ?? {}) as Record<string, Json>;
  const bytes = (result.bytes_per_order ?? {}) as Json;
  const retention = (result.retention ?? {}) as Json;
  const removed = (retention.removed ?? {}) as Json;
  lines.push(
    '',
    '| idle CPU ms per minute | api | worker | PostgreSQL |',
    '| --- | ---: | ---: | ---: |',
    `| ${n(orders.small, 0)} orders | ${n(idle.small?.api, 0)} | ${n(idle.small?.worker, 0)} | ${n(idle.small?.postgres, 0)} |`,
    `| ${n(orders.large, 0)} orders | ${n(idle.large?.api, 0)} | ${n(idle.large?.worker, 0)} | ${n(idle.large?.postgres, 0)} |`,
    '',
    `Bytes on disk per order (tables, indexes and TOAST): ${n(bytes.without_retention, 0)} without retention, ${n(bytes.with_retention, 0)} once retention removed what its defaults remove, of which the merchant's record (orders, timelines, attempts, refunds, charges, reports) is ${n(bytes.record_only, 0)}. Retention removed ${n(removed.notifications, 0)} notifications and ${n(removed.merchant_events, 0)} merchant events in ${n(retention.passes, 0)} passes, ${n(retention.seconds, 0)} s (${n(retention.rows_per_second, 0)} rows/s). The database grew in ${n(result.growth_seconds, 0)} s${result.overview_summing_seconds === undefined ? '' : `; the worker summed its history into the overview's hourly totals in ${n(result.overview_summing_seconds, 0)} s`}.`,
    '',
  );
  return lines;
}

function exportSection(result: Json | null): string[] {
  const lines = ["## Finance's payment export (`npm run bench:export`)", ''];
  lines.push(
    'A year of money movements written straight into a fresh database (nine payments in ten, one',
    'refund in ten; cards and phones; several currencies), then the whole year downloaded through',
    "the api's `GET /v1/admin/exports/payments.csv` while the api's resident memory is sampled every",
    "10 ms. The floor is PostgreSQL printing the same rows as CSV itself (psql's `COPY … TO STDOUT`,",
    'no api). Targets: at least 50,000 rows/s and under 50 MiB above the idle api.',
    '',
  );
  if (!result) return [...lines, 'No run recorded yet.', ''];
  lines.push(ranOn(result), '');
  lines.push(
    '| measure | service | floor | service ÷ floor | target |',
    '| --- | ---: | ---: | ---: | --- |',
    `| rows/s exporting ${n(result.movements, 0)} movements | ${n(result.export_rows_per_second, 0)} | ${n(result.floor_rows_per_second, 0)} | ${ratio(result.export_rows_per_second, result.floor_rows_per_second)} | ≥ 50,000 |`,
    `| api memory above idle (MiB) | ${n(result.api_peak_above_idle_mib, 1)} | | | < 50 |`,
    '',
    `The file was ${n(result.export_megabytes, 0)} MiB; its first byte came after ${n(result.export_first_byte_ms, 0)} ms (PostgreSQL sorts the year's movements by time before the first row); the api idled at ${n(result.api_idle_mib, 0)} MiB. The daily report answered the whole year in ${n(result.daily_report_year_ms, 0)} ms and one month in ${n(result.daily_report_month_ms, 0)} ms.`,
    '',
  );
  return lines;
}

/** One profile table: each layer's share of each process's sampled time, and its ms per operation. */
function profileTable(
  profile: Json,
  processes: [string, string, number][],
  operation: string,
): string[] {
  const present = processes.filter(([name]) => Array.isArray(profile[name]));
  if (present.length === 0) return [];
  const layers = new Map<string, number>();
  for (const [name] of present) {
    for (const entry of profile[name] as { layer: string; share: number }[]) {
      layers.set(entry.layer, Math.max(layers.get(entry.layer) ?? 0, entry.share));
    }
  }
  const shareOf = (name: string, layer: string) =>
    (profile[name] as { layer: string; share: number }[]).find((entry) => entry.layer === layer)
      ?.share ?? 0;
  const order = [...layers].sort((a, b) => b[1] - a[1]).map(([layer]) => layer);
  return [
    `| layer | ${present.map(([, label]) => `${label}: share, ≈ ms per ${operation}`).join(' | ')} |`,
    `| --- | ${present.map(() => '---:').join(' | ')} |`,
    ...order.map(
      (layer) =>
        `| ${layer} | ${present
          .map(([name, , cpu]) => {
            const share = shareOf(name, layer);
            return share === 0 ? '—' : `${n(share * 100, 1)}%, ${n(share * cpu, 3)}`;
          })
          .join(' | ')} |`,
    ),
  ];
}

function floorSection(
  checkout: Json | null,
  ipn: Json | null,
  checkoutProfile: Json | null,
  ipnProfile: Json | null,
): string[] {
  const lines = ['## Against the floor', ''];
  lines.push(
    'The goals the service is held to, each against the floor measured in the same run (the',
    'tables above); `bench:checkout` and `bench:ipn` print the same at their end. On a shared',
    'two-core machine identical stages of one run can differ by tens of percent: repeat a run',
    'before reading much into one figure.',
    '',
  );
  const checks = [
    ...checkoutGoals((checkout?.levels ?? []) as Json[]),
    ...(ipn ? ipnGoals(ipn) : []),
  ];
  if (checks.length === 0) return [...lines, 'No run recorded yet.', ''];
  lines.push(...goalTable(checks), '');
  lines.push(
    '### Where the time goes',
    '',
    'A run with `BENCH_PROFILE=1` has the processes write V8 CPU profiles and sorts their samples by',
    'layer (`bench/cpu-profile.ts`): each sample counts for the nearest frame in a package, in our',
    "code or in Node's HTTP, crypto or async-context modules, so a socket write is the PostgreSQL",
    "driver's or an HTTP answer's. V8 samples wall time while the thread runs: a system call that",
    'waits for a core (a write to PostgreSQL on a busy machine) counts for its caller, so the shares',
    "are where the thread was, not exact CPU; the ms column is the share of the profiled run's",
    'CPU per operation. The floor spends the same on its statements and its gateway call: what the',
    'service spends beyond it is its framework, validation, logging and the rest of its own code.',
    '',
  );
  if (checkoutProfile?.profile) {
    const level = ((checkoutProfile.levels ?? []) as Json[]).at(-1) ?? {};
    const service = (level.service ?? {}) as Json;
    const floor = (level.floor ?? {}) as Json;
    lines.push(
      `Checkouts at concurrency ${String(level.concurrency)}, ${String(checkoutProfile.at).slice(0, 10)} (profiled, so slower than the run above: api ${n(service.cpu_ms_process, 2)} ms, floor ${n(floor.cpu_ms_process, 2)} ms of CPU per checkout):`,
      '',
      ...profileTable(
        checkoutProfile.profile as Json,
        [
          ['api', 'api', Number(service.cpu_ms_process)],
          ['floor', 'floor', Number(floor.cpu_ms_process)],
        ],
        'checkout',
      ),
      '',
    );
  }
  if (ipnProfile?.profile) {
    const first = ((ipnProfile.rates ?? []) as Json[])[0] ?? {};
    const work = (first.per_notification ?? {}) as Json;
    const floor = (first.floor ?? {}) as Json;
    lines.push(
      `Notifications at ${String(first.rate)}/s, ${String(ipnProfile.at).slice(0, 10)} (profiled: api ${n(work.cpu_ms_api, 2)}, worker ${n(work.cpu_ms_worker, 2)}, floor ${n(floor.cpu_ms_floor, 2)} ms of CPU per notification):`,
      '',
      ...profileTable(
        ipnProfile.profile as Json,
        [
          ['api', 'api', Number(work.cpu_ms_api)],
          ['worker', 'worker', Number(work.cpu_ms_worker)],
          ['floor', 'floor', Number(floor.cpu_ms_floor)],
        ],
        'notification',
      ),
      '',
    );
  }
  if (!checkoutProfile?.profile && !ipnProfile?.profile)
    lines.push('No profiled run recorded yet.', '');
  lines.push(
    'What a checkout pays for beyond the floor: its guards (the key and its scope) and the',
    "validation pipe, called by the hot route without Nest's pipeline; the body is copied by",
    "class-transformer and checked by class-validator's own rules, read once per class (a body",
    'that fails one goes through class-validator again for its messages), the request log line',
    'is written (one hook, no logger per request), the rate window is',
    'counted (in leases: one Redis round trip per lease, not per request), and the answer',
    'carries a status token (an HMAC). What a notification pays for beyond the floor: the api',
    "and the worker are apart (the api's signal hands the stored row over; a row no worker took",
    'from it is claimed with a lease once due), the notifications are BullMQ jobs (up to 100 to a',
    "job, the api's signals gathered for up to 100 ms: one job's moves in Redis, one round trip",
    "to the shared lookup-rate window and one reservation of the orders' lookup intervals per",
    "batch; a batch's repeats for orders looked up within the interval go on together in one",
    'delayed job), and the order change writes a merchant event (the floor announces nothing).',
    '',
  );
  return lines;
}

/** The budgets table of bench/operation-budgets.ts, which the budget test holds the service to. */
function budgetsSection(): string[] {
  const lines = ['## Budgets per operation', ''];
  lines.push(
    'Counted, not timed, by `test/performance/payment-budgets.e2e-spec.ts` (part of `npm test`):',
    'what one operation costs the api and the worker in the steady state (the gateway token',
    'fetched, the IPN URL registered), each operation on its own. A count above its budget fails',
    'the test, and so does one below it until the budget is lowered in',
    '`bench/operation-budgets.ts`, so the table stays exact. Statements are those our code sends',
    "to PostgreSQL; commits and rows written (inserted, updated, deleted) include the queue's; on",
    "Redis the queue's work is Redis commands, on the PostgreSQL queue backend its statements.",
    "A BullMQ worker's idle waits and stalled-job checks, and the periodic sweeps, are not an",
    "operation's work and are not counted; nor is the shop's rate limit, whose store is asked once",
    'per lease of up to 100 requests. A notification alone is a verification job of its own: under',
    'load the relay puts up to 100 in a job, which shares its moves in the queue and its one count',
    'of the lookup-rate window (`test/ipn/notification-batches.e2e-spec.ts`).',
    '',
  );
  const operations = Object.keys(OPERATION_MEANINGS) as BudgetedOperation[];
  const backends: [QueueBackendName, string][] = [
    ['redis', 'Redis commands'],
    ['postgres', 'queue statements'],
  ];
  for (const [backend, queueColumn] of backends) {
    lines.push(
      `Queues on ${backend === 'redis' ? 'Redis' : 'PostgreSQL'}:`,
      '',
      `| operation | statements | commits | rows written | ${queueColumn} | gateway calls |`,
      '| --- | ---: | ---: | ---: | ---: | --- |',
    );
    for (const operation of operations) {
      const budget = OPERATION_BUDGETS[backend][operation];
      const calls = Object.entries(budget.gatewayCalls)
        .map(([endpoint, count]) => `${endpoint} ${count}`)
        .join(', ');
      lines.push(
        `| ${operation} | ${budget.statements} | ${budget.commits} | ${budget.rowsWritten} | ${budget.queueCommands} | ${calls || 'none'} |`,
      );
    }
    lines.push('');
  }
  lines.push(
    ...operations.map((operation) => `- ${operation}: ${OPERATION_MEANINGS[operation]}`),
    '',
    `An order nobody pays costs ${UNPAID_ORDER_LOOKUPS_BUDGET} lookups (\`GetTransactionStatus\`) over its 72-hour life, from the poll schedule (\`libs/domain/src/poll-schedule.ts\`), then a cancel; the goal is at most ${UNPAID_ORDER_LOOKUPS_GOAL}.`,
    '',
  );
  return lines;
}

/** The whole page. */
export function renderBenchmarksPage(): string {
  return [
    '# Benchmarks',
    '',
    '<!-- Made by `npm run bench:report` from bench/results/*.json, which each benchmark writes; a',
    'test fails when it differs from them. Run a benchmark, then the report, and commit both. -->',
    '',
    'Each script in `bench/` starts what it measures as child processes (the built apps, as `npm',
    'start` runs them) on a fresh database and queue prefix of its own, dropped afterwards, and',
    'measures in the same run, on the same machine, what the service is compared with: the gateway',
    'sandbox alone, a bare route, or the floor (`bench/floor-*.ts`: the same statements and gateway',
    'calls in one framework-free process). Compare columns of one run, not runs of different',
    "machines: the load generator, the apps, PostgreSQL and Redis share the machine's cores. The",
    'work per operation (commits and rows from `pg_stat_database`, CPU from `/proc/<pid>/stat`)',
    'holds from machine to machine better than rates do. Each script prints what it measured and',
    'writes it to `bench/results/<name>.json`; `npm run bench:report` makes this page from those',
    'files.',
    '',
    ...checkoutSection(load('checkout')),
    ...ipnSection(load('ipn')),
    ...floorSection(load('checkout'), load('ipn'), load('checkout-profile'), load('ipn-profile')),
    ...budgetsSection(),
    ...dataSection(load('data-growth')),
    ...exportSection(load('export')),
    '## Faults',
    '',
    '`npm run chaos` runs the fault campaign (PostgreSQL, Redis and the gateway failing one after',
    'another under load) and prints what was lost or doubled; see',
    '[operations.md](operations.md#faults-as-figures-npm-run-chaos).',
    '',
  ].join('\n');
}

if (require.main === module) {
  writeFileSync(BENCHMARKS_PAGE, renderBenchmarksPage());
  process.stdout.write(`wrote ${BENCHMARKS_PAGE}\n`);
}
