import { parse } from 'csv-parse/sync';
import http from 'node:http';
import { DataSource } from 'typeorm';
import { RunningService } from '../support/service';
import { FinanceApi, Row, startFinanceApi } from './finance-support';

/** The export streams from one snapshot and gives its connection back when the client leaves. */
describe('payment export and daily report (api + Postgres)', () => {
  let service: RunningService;
  let dataSource: DataSource;
  let get: FinanceApi['get'];
  let exportRows: FinanceApi['exportRows'];
  let api: FinanceApi | undefined;

  beforeAll(async () => {
    api = await startFinanceApi();
    ({ service, dataSource, get, exportRows } = api);
  }, 60_000);
  afterAll(() => api?.close());

  it('streams from one snapshot: rows that arrive while it streams are neither repeated nor missed', async () => {
    // 20,000 payments on one day: several megabytes, so the reader below holds the stream open.
    const [{ count }] = (await dataSource.query(
      `WITH made AS (
         INSERT INTO orders (merchant_reference, order_tracking_id, kind, status, submission_status,
                             amount, currency, description, paid_amount, paid_currency, paid_at,
                             confirmation_code, created_at, updated_at, payment_method, version)
         SELECT 'snap-' || g || '-' || $1::text, gen_random_uuid()::text, 'hosted', 'completed',
                'submitted', 10.00, 'TZS', 'snapshot seed ' || repeat('x', 80), 10.00, 'TZS',
                '2015-07-01T00:00:00Z'::timestamptz + g * interval '3 seconds',
                'SN' || g || $1::text,
                '2015-07-01T00:00:00Z'::timestamptz + g * interval '3 seconds' - interval '1 minute',
                '2015-07-01T00:00:00Z'::timestamptz + g * interval '3 seconds', 'Visa', 1
           FROM generate_series(1, 20000) g
         RETURNING 1)
       SELECT count(*)::int AS count FROM made`,
      [Date.now().toString(36)],
    )) as { count: number }[];
    expect(count).toBe(20000);

    const url = new URL(
      '/v1/admin/exports/payments.csv?from=2015-07-01&to=2015-07-01&tz=UTC&currency=TZS',
      service.apiUrl,
    );
    const chunks: Buffer[] = [];
    const done = new Promise<string>((resolve, reject) => {
      const req = http.get(url, { headers: service.adminAuth }, (response) => {
        expect(response.statusCode).toBe(200);
        let paused = false;
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          if (paused) return;
          paused = true;
          response.pause();
          // While the export is open: new payments late in the day, refunds of early ones,
          // and an early payment moved to the end of the day.
          void (async () => {
            await dataSource.query(
              `INSERT INTO orders (merchant_reference, order_tracking_id, kind, status,
                                   submission_status, amount, currency, description, paid_amount,
                                   paid_currency, paid_at, created_at, updated_at, version)
               SELECT 'late-' || g || '-' || $1::text, gen_random_uuid()::text, 'hosted',
                      'completed', 'submitted', 10.00, 'TZS', 'late', 10.00, 'TZS',
                      '2015-07-01T23:00:00Z'::timestamptz + g * interval '1 second',
                      '2015-07-01T23:00:00Z'::timestamptz, '2015-07-01T23:00:00Z'::timestamptz, 1
                 FROM generate_series(1, 50) g`,
              [Date.now().toString(36)],
            );
            await dataSource.query(
              // Settled already (reversed), so no worker of this run follows them up.
              `INSERT INTO refunds (order_id, confirmation_code, amount, currency, is_partial,
                                    reason, requested_by, admin_key_name, status, accepted_at,
                                    reversed_at, created_at, updated_at)
               SELECT id, confirmation_code, 10.00, 'TZS', false, 'late', 'finance', 'seed',
                      'reversed', '2015-07-01T23:30:00Z', '2015-07-01T23:40:00Z',
                      '2015-07-01T23:30:00Z', '2015-07-01T23:40:00Z'
                 FROM orders WHERE merchant_reference LIKE 'snap-1_-%'`,
            );
            await dataSource.query(
              `UPDATE orders SET paid_at = '2015-07-01T23:59:00Z'
                WHERE merchant_reference LIKE 'snap-2-%'`,
            );
            response.resume();
          })().catch(reject);
        });
        response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        response.on('error', reject);
      });
      req.on('error', reject);
    });
    const rows = parse(await done, { columns: true }) as Row[];
    const references = rows.map((row) => row.merchant_reference);
    expect(new Set(references).size).toBe(references.length);
    expect(rows).toHaveLength(20000);
    expect(
      rows.every((row) => row.type === 'payment' && row.merchant_reference.startsWith('snap-')),
    ).toBe(true);
    // The moved payment appears once, where it was when the export began.
    const moved = rows.find((row) => row.merchant_reference.startsWith('snap-2-')) as Row;
    expect(moved.occurred_at_utc).toBe('2015-07-01T00:00:06.000Z');

    // A later export sees what arrived.
    const after = await exportRows(
      'from=2015-07-01&to=2015-07-01&tz=UTC&currency=TZS&columns=type',
    );
    expect(after.rows.filter((row) => row.type === 'payment')).toHaveLength(20050);
    expect(after.rows.filter((row) => row.type === 'refund')).toHaveLength(10);
  }, 60_000);

  it('gives the connection back when the client goes away mid-export', async () => {
    const url = new URL(
      '/v1/admin/exports/payments.csv?from=2015-07-01&to=2015-07-01&tz=UTC&currency=TZS',
      service.apiUrl,
    );
    await new Promise<void>((resolve, reject) => {
      const req = http.get(url, { headers: service.adminAuth }, (response) => {
        response.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (error) => (req.destroyed ? resolve() : reject(error)));
    });
    const openExports = async () =>
      (
        (await dataSource.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()
              AND xact_start IS NOT NULL
              AND query LIKE 'COPY (%' AND state <> 'idle'`,
        )) as { n: number }[]
      )[0].n;
    const deadline = Date.now() + 10_000;
    while ((await openExports()) > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await openExports()).toBe(0);
    const health = await get('/v1/admin/reports/daily?from=2015-07-01&to=2015-07-01&tz=UTC');
    expect(health.status).toBe(200);
  }, 30_000);
});
