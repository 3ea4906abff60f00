/**
 * The service against the floor measured in the same run, and the goals it is held to: one
 * definition for what bench:checkout and bench:ipn print and what docs/benchmarks.md shows.
 */
type Json = Record<string, unknown>;

export interface GoalCheck {
  measure: string;
  service: number;
  floor: number;
  /**
   * How the service stands: service ÷ floor, service − floor (rows), or its own figure (a goal
   * that names no floor: commits per notification).
   */
  figure: number;
  comparedBy: 'ratio' | 'difference' | 'own';
  goal: string;
  met: boolean;
}

const num = (value: unknown): number => Number(value);
const round = (value: number, digits = 2) => Number(value.toFixed(digits));

/** The checkout goals at concurrency 16 (or the run's highest level, named in the measure). */
export function checkoutGoals(levels: Json[]): GoalCheck[] {
  const withFloor = levels.filter((level) => level.floor);
  const level =
    withFloor.find((candidate) => num(candidate.concurrency) === 16) ??
    withFloor[withFloor.length - 1];
  if (!level) return [];
  const service = level.service as Json;
  const floor = level.floor as Json;
  const at = `concurrency ${String(level.concurrency)}`;
  const rate = round(num(service.per_second) / num(floor.per_second));
  const cpu = round(num(service.cpu_ms_process) / num(floor.cpu_ms_process));
  return [
    {
      measure: `checkouts/s at ${at}`,
      service: num(service.per_second),
      floor: num(floor.per_second),
      figure: rate,
      comparedBy: 'ratio',
      goal: '≥ 0.8× the floor',
      met: rate >= 0.8,
    },
    {
      measure: `api CPU ms per checkout at ${at}`,
      service: num(service.cpu_ms_process),
      floor: num(floor.cpu_ms_process),
      figure: cpu,
      comparedBy: 'ratio',
      goal: '≤ 1.5× the floor',
      met: cpu <= 1.5,
    },
    ...latencyGoal(withFloor),
  ];
}

/** p50 at concurrency 1, when the run had that level with the floor. */
function latencyGoal(withFloor: Json[]): GoalCheck[] {
  const single = withFloor.find((candidate) => num(candidate.concurrency) === 1);
  if (!single) return [];
  const service = num((single.service as Json).p50_ms);
  const floor = num((single.floor as Json).p50_ms);
  return [
    {
      measure: 'checkout p50 ms at concurrency 1',
      service,
      floor,
      figure: round(service / floor),
      comparedBy: 'ratio',
      goal: '≤ 1.5× the floor',
      met: service / floor <= 1.5,
    },
  ];
}

/** The highest offered rate answered in full with p99 within 25 ms, or 0. */
function rateWithin25ms(runs: { rate: number; p99: number; ok: boolean }[]): number {
  return Math.max(0, ...runs.filter((run) => run.ok && run.p99 <= 25).map((run) => run.rate));
}

/**
 * The floor's store-and-acknowledge route in the api-alone ramp (what the api alone must do,
 * framework-free; or `unflushed_floor`, the same committed without waiting for the disk): the
 * highest rate it acknowledged in full with p99 ≤ 25 ms, and the most it answered at any latency;
 * null when the run did not fire it.
 */
export function storedFloorRates(
  result: Json,
  route: 'stored_floor' | 'unflushed_floor' = 'stored_floor',
): { within25ms: number; busiest: number } | null {
  const stages = ((result.api_alone ?? []) as Json[])
    .map((run) => ({ rate: num(run.rate), stage: run[route] as Json | undefined }))
    .filter((run): run is { rate: number; stage: Json } => run.stage !== undefined);
  if (stages.length === 0) return null;
  return {
    within25ms: rateWithin25ms(
      stages.map(({ rate, stage }) => ({
        rate,
        p99: num(stage.p99_ms),
        ok: num(stage.ok) === num(stage.sent),
      })),
    ),
    busiest: Math.max(...stages.map(({ stage }) => num(stage.per_second))),
  };
}

/** The api alone's goal: at least this share of the bare route's rate at p99 ≤ 25 ms. */
export const API_ALONE_SHARE = 0.5;

/** The notification goals at the first rate (with the floor), and the api alone. */
export function ipnGoals(result: Json): GoalCheck[] {
  const rates = (result.rates ?? []) as Json[];
  const first = rates[0];
  const checks: GoalCheck[] = [];
  if (first?.per_notification && first.floor) {
    const work = first.per_notification as Json;
    const floor = first.floor as Json;
    const at = `at ${String(first.rate)}/s`;
    const cpu = num(work.cpu_ms_api) + num(work.cpu_ms_worker);
    const rows = num(work.rows_inserted) + num(work.rows_updated);
    const floorRows = num(floor.rows_inserted) + num(floor.rows_updated);
    const p99 = num((first.service as Json).p99_ms);
    const commits = num(work.commits);
    checks.push(
      {
        measure: `CPU ms per notification ${at} (api + worker)`,
        service: round(cpu, 3),
        floor: num(floor.cpu_ms_floor),
        figure: round(cpu / num(floor.cpu_ms_floor)),
        comparedBy: 'ratio',
        goal: '≤ 1.5× the floor',
        met: cpu / num(floor.cpu_ms_floor) <= 1.5,
      },
      {
        measure: `rows written per notification ${at}`,
        service: round(rows),
        floor: round(floorRows),
        figure: round(rows - floorRows),
        comparedBy: 'difference',
        goal: '≤ the floor + 1.0',
        met: rows - floorRows <= 1.0,
      },
      {
        measure: `commits per notification ${at}`,
        service: round(commits),
        floor: round(num(floor.commits)),
        figure: round(commits),
        comparedBy: 'own',
        goal: '≤ 1.0',
        met: commits <= 1.0,
      },
      {
        measure: `acknowledgement p99 ms ${at}`,
        service: p99,
        floor: num(floor.ack_p99_ms),
        figure: round(p99 / num(floor.ack_p99_ms)),
        comparedBy: 'ratio',
        goal: '≤ 2× the floor',
        met: p99 / num(floor.ack_p99_ms) <= 2,
      },
    );
  }
  const aloneRuns = (result.api_alone ?? []) as Json[];
  const alone = aloneRuns.map((run) => ({
    rate: num(run.rate),
    p99: num(run.p99_ms),
    ok: num(run.ok) === num(run.sent),
  }));
  // A ramped run fired the bare route at each of its rates; an older one only at the main rates.
  const ramp = result.api_alone_ramp as Json | undefined;
  const bare = ramp
    ? aloneRuns.map((run) => {
        const route = run.bare_route as Json;
        return {
          rate: num(run.rate),
          p99: num(route.p99_ms),
          ok: num(route.ok) === num(route.sent),
        };
      })
    : rates.map((run) => ({
        rate: num(run.rate),
        p99: num((run.bare_route as Json).p99_ms),
        ok: true,
      }));
  if (alone.length > 0) {
    const api = rateWithin25ms(alone);
    const route = rateWithin25ms(bare);
    const ofRates = !ramp
      ? 'of the rates run'
      : ramp.capped
        ? `rates ramped ×${String(ramp.factor)} up to ${num(ramp.max).toLocaleString('en-US')}/s, where the bare route still met it`
        : `rates ramped ×${String(ramp.factor)} until the bare route missed it`;
    checks.push({
      measure: `the api alone: highest rate acknowledged with p99 ≤ 25 ms (${ofRates})`,
      service: api,
      floor: route,
      figure: route > 0 ? round(api / route) : 0,
      comparedBy: 'ratio',
      goal: `≥ ${API_ALONE_SHARE}× a bare route's`,
      met: route > 0 && api / route >= API_ALONE_SHARE,
    });
  }
  return checks;
}

const figureText = (check: GoalCheck) =>
  check.comparedBy === 'difference'
    ? `${check.figure >= 0 ? '+' : ''}${check.figure}`
    : check.comparedBy === 'own'
      ? `${check.figure}`
      : `${check.figure}×`;

/** What a benchmark prints at its end: each measure, service ÷ floor, the goal, met or not. */
export function ratioLines(kind: 'checkout' | 'ipn', data: Json[] | Json): string[] {
  const checks = kind === 'checkout' ? checkoutGoals(data as Json[]) : ipnGoals(data as Json);
  if (checks.length === 0) return [];
  return [
    '',
    'service ÷ floor (same run) against the goals:',
    ...checks.map(
      (check) =>
        `  ${check.measure}: service ${check.service}, floor ${check.floor} -> ${figureText(check)} (goal ${check.goal}: ${check.met ? 'met' : 'not met'})`,
    ),
  ];
}

/** The same as a table for docs/benchmarks.md. */
export function goalTable(checks: GoalCheck[]): string[] {
  if (checks.length === 0) return [];
  return [
    '| measure | service | floor | service against the floor | goal | met |',
    '| --- | ---: | ---: | ---: | --- | --- |',
    ...checks.map(
      (check) =>
        `| ${check.measure} | ${check.service.toLocaleString('en-US')} | ${check.floor.toLocaleString('en-US')} | ${figureText(check)} | ${check.goal} | ${check.met ? 'yes' : '**no**'} |`,
    ),
  ];
}
