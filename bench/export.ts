/**
 * Finance's export at size: rows per second and the api's memory while it streams
 * BENCH_EXPORT_MOVEMENTS money movements (default 1,000,000) as CSV, beside the floor measured in
 * the same run: PostgreSQL printing the same rows as CSV itself (`COPY (…) TO STDOUT`, no api).
 * Also times the daily report over the whole range and over one month of it.
 *
 *   npm run bench:export
 *   BENCH_EXPORT_MOVEMENTS=200000 npm run bench:export     # a quicker run
 *
 * 1. Starts the sandbox and the api (the built apps) on a fresh database and writes the movements
 *    straight into it over a year: nine payments in ten, one refund in ten (of the year's first payments), cards and phones,
 *    several currencies. VACUUM ANALYZE, as a database that has lived would have had.
 * 2. Warms the api with a small export, reads its resident memory (idle), then downloads the whole
 *    year while sampling the api's memory every 10 ms; counts rows and bytes as they arrive.
 * 3. Runs the same query through `COPY … TO STDOUT WITH CSV` (the floor) and reports the ratio.
 *
 * Targets (docs/benchmarks.md): at least 50,000 rows/s, at most 50 MiB above the idle memory.
 * BENCH_EXPORT_KEEP=1 keeps the database (to look at plans). Writes bench/results/export.json. Needs PostgreSQL at 127.0.0.1:5432 (or BENCH_POSTGRES_URL)
 * and Redis (or REDIS_URL); drops its database and keys afterwards.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { exportRows } from '../libs/checkout/src/finance/money-movements';
import { DEFAULT_PAYMENT_COLUMNS } from '../libs/checkout/src/finance/payment-columns';
import { BenchStores, call, freePorts, MeasuredProcesses, waitUntil } from './processes';
import { writeResults } from './results';

const MOVEMENTS = Number(process.env.BENCH_EXPORT_MOVEMENTS ?? 1_000_000);
const KEY = randomBytes(8).toString('hex');
const ADMIN = { authorization: `Bearer admin_${KEY}` };
const YEAR_START = '2025-01-01T00:00:00Z';
const processes = new MeasuredProcesses();
const say = (line = '') => process.stdout.write(`${line}\n`);
const MIB = 2 ** 20;

/** Resident memory of a process, bytes (/proc/<pid>/status VmRSS). */
function residentBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return Number(kib ?? 0) * 1024;
}

/** Writes the movements: orders paid over the year, one in ten of them refunded. */
async function seed(db: Client, movements: number): Promise<{ payments: number; refunds: number }> {
  const refunds = Math.floor(movements / 10);
  const payments = movements - refunds;
  const batch = 100_000;
  for (let first = 1; first <= payments; first += batch) {
    const last = Math.min(payments, first + batch - 1);
    await db.query(
      `INSERT INTO orders (merchant_reference, order_tracking_id, kind, status, submission_status,
                           amount, currency, description, customer_email, customer_phone,
                           payment_method, payment_account, confirmation_code, paid_amount,
                           paid_currency, paid_at, created_at, updated_at, version)
       SELECT 'exp-' || g, 'trk-' || g, 'hosted', 'completed', 'submitted', a.amount, a.currency,
              'Order ' || g || ': two bags of coffee', 'customer' || g || '@example.com',
              '+2547' || lpad((g % 100000000)::text, 8, '0'),
              CASE WHEN g % 3 = 0 THEN 'MpesaKE' ELSE 'Visa' END,
              CASE WHEN g % 3 = 0 THEN '2547' || lpad((g % 100000000)::text, 8, '0')
                   ELSE '444444xxxxxx' || lpad((g % 10000)::text, 4, '0') END,
              'CONF' || g, a.amount, a.currency, a.paid_at, a.paid_at - interval '2 minutes',
              a.paid_at, 2
         FROM generate_series($1::int, $2::int) g,
              LATERAL (SELECT ((g % 50000) + 1)::numeric / 4 AS amount,
                              (ARRAY['KES', 'KES', 'KES', 'UGX', 'TZS'])[g % 5 + 1] AS currency,
                              $3::timestamptz + (g::float8 / $4) * interval '364 days' AS paid_at) a`,
      [first, last, YEAR_START, payments],
    );
  }
  // One in nine payments refunded a day later (the first `refunds` of them).
  await db.query(
    `INSERT INTO refunds (order_id, confirmation_code, amount, currency, is_partial, reason,
                          requested_by, admin_key_name, status, accepted_at, created_at, updated_at)
     SELECT id, confirmation_code, paid_amount, paid_currency, false, 'customer returned it',
            'finance@shop', 'bench', 'accepted', paid_at + interval '1 day',
            paid_at + interval '1 day', paid_at + interval '1 day'
       FROM orders WHERE merchant_reference LIKE 'exp-%'
      ORDER BY paid_at LIMIT $1`,
    [refunds],
  );
  return { payments, refunds };
}

/** Downloads `path`, counting lines and bytes; samples the api's memory every 10 ms meanwhile. */
function download(
  url: string,
  apiPid: number,
): Promise<{
  rows: number;
  bytes: number;
  seconds: number;
  peakBytes: number;
  firstByteMs: number;
}> {
  return new Promise((resolve, reject) => {
    let peakBytes = residentBytes(apiPid);
    const sampler = setInterval(() => {
      peakBytes = Math.max(peakBytes, residentBytes(apiPid));
    }, 10);
    const started = performance.now();
    let firstByteMs = 0;
    let lines = 0;
    let bytes = 0;
    const req = request(url, { headers: ADMIN }, (response) => {
      if (response.statusCode !== 200) {
        clearInterval(sampler);
        reject(new Error(`export answered ${response.statusCode}`));
        return;
      }
      response.on('data', (chunk: Buffer) => {
        if (bytes === 0) firstByteMs = performance.now() - started;
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines += 1;
      });
      response.on('end', () => {
        clearInterval(sampler);
        resolve({
          rows: lines - 1,
          bytes,
          seconds: (performance.now() - started) / 1000,
          peakBytes,
          firstByteMs,
        });
      });
      response.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The floor: PostgreSQL alone prints the same rows as CSV (psql's COPY to stdout, discarded). */
async function floor(
  databaseUrl: string,
  from: string,
  to: string,
): Promise<{ rows: number; seconds: number }> {
  const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
  const sql = exportRows(DEFAULT_PAYMENT_COLUMNS)
    .replace(/\$1/g, `${literal(from)}::timestamptz`)
    .replace(/\$2/g, `${literal(to)}::timestamptz`)
    .replace(/\$[3456](::\w+)?/g, 'NULL::text');
  const started = performance.now();
  const output = await new Promise<string>((resolve, reject) => {
    const psql = spawn(
      'psql',
      [
        databaseUrl,
        '-X',
        '-q',
        '-c',
        "SET TimeZone = 'Africa/Nairobi'",
        '-c',
        `COPY (${sql.replace(/\s+/g, ' ')}) TO STDOUT WITH (FORMAT csv, HEADER)`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let lines = 0;
    psql.stdout.on('data', (chunk: Buffer) => {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines += 1;
    });
    psql.on('exit', (code) =>
      code === 0 ? resolve(String(lines)) : reject(new Error(`psql exited ${code}`)),
    );
  });
  return { rows: Number(output) - 1, seconds: (performance.now() - started) / 1000 };
}

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
}

async function main(): Promise<void> {
  const stores = await BenchStores.create('export');
  const databaseUrl = stores.databaseUrl;
  const db = new Client({ connectionString: databaseUrl });
  const [sandboxPort, apiPort] = await freePorts(2);
  const api = `http://127.0.0.1:${apiPort}`;
  const results: Record<string, unknown> = { movements_target: MOVEMENTS };
  try {
    processes.startSandbox(sandboxPort);
    const apiProcess = processes.startApp('api', {
      NODE_ENV: 'development',
      PORT: String(apiPort),
      DATABASE_URL: databaseUrl,
      REDIS_URL: stores.redisUrl,
      QUEUE_PREFIX: stores.queuePrefix,
      PESAPAL_BASE_URL: `http://127.0.0.1:${sandboxPort}/pesapalv3/api`,
      PUBLIC_BASE_URL: api,
      SHOP_API_KEYS: `bench:shop_${KEY}`,
      ADMIN_API_KEYS: `bench-admin:admin_${KEY}`,
      IPN_PATH_SECRET: 'bench-ipn-secret',
      LOG_LEVEL: 'warn',
    });
    await waitUntil(
      'the api',
      async () => (await call(`${api}/health/ready`, 'GET')).status === 200,
    );
    await db.connect();

    say(`writing ${MOVEMENTS.toLocaleString('en')} movements over 2025…`);
    const seeded = await timed(() => seed(db, MOVEMENTS));
    await db.query('VACUUM ANALYZE');
    say(
      `  ${seeded.value.payments} payments, ${seeded.value.refunds} refunds in ${(seeded.ms / 1000).toFixed(0)} s`,
    );

    const range = 'from=2025-01-01&to=2025-12-31&tz=Africa/Nairobi';
    // Warm: the code paths of an export loaded, then the api's memory at rest.
    await download(
      `${api}/v1/admin/exports/payments.csv?from=2025-01-01&to=2025-01-02`,
      apiProcess.pid as number,
    );
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const idleBytes = residentBytes(apiProcess.pid as number);

    say('exporting the year through the api…');
    const exported = await download(
      `${api}/v1/admin/exports/payments.csv?${range}`,
      apiProcess.pid as number,
    );
    if (exported.rows !== MOVEMENTS) {
      throw new Error(`the export has ${exported.rows} rows, expected ${MOVEMENTS}`);
    }
    say('the same rows from PostgreSQL alone (COPY … TO STDOUT)…');
    const bounds = { from: '2024-12-31T21:00:00Z', to: '2025-12-31T21:00:00Z' };
    const base = await floor(databaseUrl, bounds.from, bounds.to);

    const yearReport = await timed(() =>
      call(`${api}/v1/admin/reports/daily?${range}`, 'GET', { headers: ADMIN }),
    );
    const monthReport = await timed(() =>
      call(`${api}/v1/admin/reports/daily?from=2025-06-01&to=2025-06-30&tz=Africa/Nairobi`, 'GET', {
        headers: ADMIN,
      }),
    );
    if (yearReport.value.status !== 200 || monthReport.value.status !== 200) {
      throw new Error('the daily report failed');
    }

    const rowsPerSecond = Math.round(exported.rows / exported.seconds);
    const floorRowsPerSecond = Math.round(base.rows / base.seconds);
    Object.assign(results, {
      movements: exported.rows,
      export_seconds: round(exported.seconds),
      export_rows_per_second: rowsPerSecond,
      export_megabytes: round(exported.bytes / MIB),
      export_first_byte_ms: Math.round(exported.firstByteMs),
      api_idle_mib: round(idleBytes / MIB),
      api_peak_mib: round(exported.peakBytes / MIB),
      api_peak_above_idle_mib: round((exported.peakBytes - idleBytes) / MIB),
      floor_rows_per_second: floorRowsPerSecond,
      service_over_floor: round(rowsPerSecond / floorRowsPerSecond),
      daily_report_year_ms: Math.round(yearReport.ms),
      daily_report_month_ms: Math.round(monthReport.ms),
    });
    say();
    say(`| measure | value | target |`);
    say(`| --- | --- | --- |`);
    say(`| export rows/s | ${rowsPerSecond.toLocaleString('en')} | ≥ 50,000 |`);
    say(`| floor (PostgreSQL's COPY) rows/s | ${floorRowsPerSecond.toLocaleString('en')} | |`);
    say(`| export ÷ floor | ${results.service_over_floor} | |`);
    say(`| api memory above idle, MiB | ${results.api_peak_above_idle_mib} | < 50 |`);
    say(`| first byte, ms | ${results.export_first_byte_ms} | |`);
    say(
      `| daily report, year / month, ms | ${results.daily_report_year_ms} / ${results.daily_report_month_ms} | |`,
    );
    say(`\nwrote ${writeResults('export', results)}`);
  } finally {
    await processes.stop();
    await db.end().catch(() => undefined);
    await stores.remove(process.env.BENCH_EXPORT_KEEP === '1');
  }
}

const round = (n: number) => Math.round(n * 100) / 100;

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
