import { parse } from 'csv-parse/sync';
import http from 'node:http';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { maskAccount } from '../../libs/checkout/src/orders/order-view';
import { masked } from '../../libs/checkout/src/finance/money-movements';
import { openTestDataSource } from '../support/database';
import { SeedRows } from '../support/seed-rows';
import { RunningService, startService } from '../support/service';

type Row = Record<string, string>;

const DEFAULT_COLUMNS = [
  'occurred_at_utc',
  'occurred_at_local',
  'type',
  'status',
  'merchant_reference',
  'order_tracking_id',
  'attempt',
  'confirmation_code',
  'currency',
  'amount',
  'payment_method',
  'payment_account',
  'customer_email',
  'customer_phone',
  'refund_reason',
  'original_reference',
  'description',
];

/** Exact sums of decimal strings, in cents. */
const cents = (amount: string) => {
  const negative = amount.startsWith('-');
  const [whole, fraction = ''] = amount.replace('-', '').split('.');
  const value = BigInt(whole) * 100n + BigInt((fraction + '00').slice(0, 2));
  return negative ? -value : value;
};
const total = (amounts: string[]) => amounts.reduce((sum, amount) => sum + cents(amount), 0n);

/**
 * Finance's payment export and daily report, against the api and PostgreSQL. Each test seeds its
 * movements on days of 2015 no other suite writes to, so the ranges hold only its own rows.
 */
describe('payment export and daily report (api + Postgres)', () => {
  let service: RunningService;
  let dataSource: DataSource;
  let seed: SeedRows;

  beforeAll(async () => {
    service = await startService();
    dataSource = await openTestDataSource(4);
    seed = new SeedRows(dataSource);
  }, 60_000);
  afterAll(async () => {
    await dataSource?.destroy();
    await service?.close();
  });

  const get = (path: string) => request(service.apiUrl).get(path).set(service.adminAuth);

  async function exportRows(query: string): Promise<{ rows: Row[]; text: string }> {
    const response = await get(`/v1/admin/exports/payments.csv?${query}`).buffer(true);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toMatch(/^attachment; filename="payments_/);
    const text = response.text;
    return { rows: parse(text, { columns: true, bom: true }) as Row[], text };
  }

  it('lists every payment, refund and reversal of the range once, signed, masked and inert', async () => {
    const card = await seed.moneyOrder({
      paidAt: '2015-03-10T06:00:00.000Z',
      amount: '1500.50',
      description: '=HYPERLINK("http://evil.example","x")',
    });
    const phone = await seed.moneyOrder({
      paidAt: '2015-03-10T07:30:00.250Z',
      amount: '200.00',
      phone: '+254712345678',
      paymentMethod: 'MpesaKE',
      paymentAccount: '254712345678',
      description: '+254 order',
    });
    const ugx = await seed.moneyOrder({
      paidAt: '2015-03-11T08:00:00.000Z',
      currency: 'UGX',
      amount: '35000.00',
      description: '-2+3',
    });
    // Refunded in part: a payment and a refund of 40.00, its reason formula-like.
    await seed.moneyRefund(card.id, {
      status: 'accepted',
      amount: '40.00',
      reason: '@SUM(A1:A9)',
      acceptedAt: '2015-03-11T09:00:00.000Z',
    });
    // A refund whose acceptance was never seen (a timeout), settled by the reversal.
    const refunded = await seed.moneyOrder({
      paidAt: '2015-03-10T10:00:00.000Z',
      reversedAt: '2015-03-11T10:00:00.000Z',
      amount: '75.25',
    });
    await seed.moneyRefund(refunded.id, {
      status: 'reversed',
      amount: '75.25',
      reversedAt: '2015-03-11T10:00:00.000Z',
    });
    // A chargeback: reversed with no refund of ours behind it.
    const chargeback = await seed.moneyOrder({
      paidAt: '2015-03-10T11:00:00.000Z',
      reversedAt: '2015-03-12T12:00:00.000Z',
      amount: '300.00',
    });
    // A double payment: the earlier attempt paid too and its payment was refunded.
    const doubled = await seed.moneyOrder({
      paidAt: '2015-03-12T13:00:00.000Z',
      amount: '50.00',
      attemptNumber: 2,
    });
    const earlier = await seed.paidEarlierAttempt(doubled.id, {
      paidAt: '2015-03-12T12:55:00.000Z',
      amount: '50.00',
      refundAcceptedAt: '2015-03-12T14:00:00.000Z',
    });
    // Not money movements: a rejected and an open refund, a failed order, one paid outside.
    const rejectedOnly = await seed.moneyOrder({ paidAt: '2015-03-12T15:00:00.000Z' });
    await seed.moneyRefund(rejectedOnly.id, { status: 'rejected', amount: '100.00' });
    await seed.moneyRefund(phone.id, { status: 'requested', amount: '200.00' });
    await seed.moneyOrder({ failedAt: '2015-03-11T05:00:00.000Z' });
    await seed.moneyOrder({ paidAt: '2015-03-09T20:59:59.999Z' }); // 23:59 on the 9th, Nairobi
    await seed.moneyOrder({ paidAt: '2015-03-12T21:00:00.000Z' }); // 00:00 on the 13th, Nairobi

    const { rows } = await exportRows('from=2015-03-10&to=2015-03-12&tz=Africa/Nairobi');
    expect(Object.keys(rows[0])).toEqual(DEFAULT_COLUMNS);
    const seen = rows.map((row) => `${row.type} ${row.merchant_reference} ${row.amount}`);
    expect(seen.sort()).toEqual(
      [
        `payment ${card.reference} 1500.50`,
        `payment ${phone.reference} 200.00`,
        `payment ${ugx.reference} 35000.00`,
        `refund ${card.reference} -40.00`,
        `payment ${refunded.reference} 75.25`,
        `refund ${refunded.reference} -75.25`,
        `payment ${chargeback.reference} 300.00`,
        `reversal ${chargeback.reference} -300.00`,
        `payment ${doubled.reference} 50.00`,
        `payment ${doubled.reference} 50.00`,
        `refund ${doubled.reference} -50.00`,
        `payment ${rejectedOnly.reference} 100.00`,
      ].sort(),
    );
    // Oldest first, in UTC and in Nairobi's local time (UTC+3).
    const instants = rows.map((row) => row.occurred_at_utc);
    expect([...instants].sort()).toEqual(instants);
    const first = rows[0];
    expect(first.occurred_at_utc).toBe('2015-03-10T06:00:00.000Z');
    expect(first.occurred_at_local).toBe('2015-03-10T09:00:00.000+03:00');

    // The sums equal the database's, per currency: payments less refunds and reversals.
    const byCurrency = (currency: string) =>
      total(rows.filter((row) => row.currency === currency).map((row) => row.amount));
    const [database] = (await dataSource.query(
      `SELECT (SELECT sum(paid_amount) FROM orders WHERE id = ANY($1) AND currency = 'KES')
            + (SELECT sum(paid_amount) FROM payment_attempts WHERE id = $2)
            - (SELECT sum(amount) FROM refunds WHERE order_id = ANY($1)
                 AND status IN ('accepted', 'reversed'))
            - (SELECT paid_amount FROM orders WHERE id = $3)
            - (SELECT paid_amount FROM payment_attempts WHERE id = $2) AS kes`,
      [
        [card.id, phone.id, refunded.id, chargeback.id, doubled.id, rejectedOnly.id],
        earlier.id,
        chargeback.id,
      ],
    )) as { kes: string }[];
    expect(byCurrency('KES')).toBe(cents(database.kes));
    expect(byCurrency('UGX')).toBe(cents('35000.00'));

    const row = (type: string, reference: string) =>
      rows.find((r) => r.type === type && r.merchant_reference === reference) as Row;
    // Formula-like cells are inert; negative amounts stay numbers.
    expect(row('payment', card.reference).description).toBe(
      `'=HYPERLINK("http://evil.example","x")`,
    );
    expect(row('payment', phone.reference).description).toBe(`'+254 order`);
    expect(row('payment', ugx.reference).description).toBe(`'-2+3`);
    expect(row('refund', card.reference).refund_reason).toBe(`'@SUM(A1:A9)`);
    // Cards and phones masked; the refund points at the payment it undoes.
    expect(row('payment', phone.reference).payment_account).toBe('*********678');
    expect(row('payment', phone.reference).customer_phone).toBe('**********678');
    expect(row('payment', card.reference).payment_account).toBe('444444xxxxxx4444');
    expect(row('refund', card.reference).original_reference).toBe(
      row('payment', card.reference).confirmation_code,
    );
    expect(row('refund', card.reference).status).toBe('accepted');
    expect(row('reversal', chargeback.reference).original_reference).toBe(
      row('payment', chargeback.reference).confirmation_code,
    );
    const earlierPayment = rows.find((r) => r.confirmation_code === earlier.confirmationCode);
    expect(earlierPayment).toMatchObject({ attempt: '1', order_tracking_id: earlier.trackingId });
    expect(row('payment', doubled.reference)).toBeDefined();
  });

  it('reads dates as whole local days: Nairobi and UTC place the same instants differently', async () => {
    const lastNairobi = await seed.moneyOrder({ paidAt: '2015-04-01T20:59:59.999Z' });
    const midnightNairobi = await seed.moneyOrder({ paidAt: '2015-04-01T21:00:00.000Z' });
    const lateUtc = await seed.moneyOrder({ paidAt: '2015-04-01T23:59:59.999Z' });
    const nextUtc = await seed.moneyOrder({ paidAt: '2015-04-02T00:00:00.000Z' });
    const refs = async (query: string) =>
      (await exportRows(query)).rows.map((row) => row.merchant_reference).sort();

    expect(await refs('from=2015-04-01&to=2015-04-01&tz=Africa/Nairobi')).toEqual(
      [lastNairobi.reference].sort(),
    );
    expect(await refs('from=2015-04-02&to=2015-04-02&tz=Africa/Nairobi')).toEqual(
      [midnightNairobi.reference, lateUtc.reference, nextUtc.reference].sort(),
    );
    expect(await refs('from=2015-04-01&to=2015-04-01&tz=UTC')).toEqual(
      [lastNairobi.reference, midnightNairobi.reference, lateUtc.reference].sort(),
    );
    // Instants are exact, `to` excluded.
    expect(
      await refs('from=2015-04-01T21:00:00Z&to=2015-04-02T00:00:00.000%2B00:00&tz=UTC'),
    ).toEqual([midnightNairobi.reference, lateUtc.reference].sort());
    // REPORT_TIME_ZONE (Africa/Nairobi) when no tz is named.
    expect(await refs('from=2015-04-01&to=2015-04-01')).toEqual([lastNairobi.reference]);

    const report = await get('/v1/admin/reports/daily?from=2015-04-01&to=2015-04-02&tz=UTC');
    expect(report.status).toBe(200);
    expect(
      report.body.rows.map((r: { day: string; payments: number }) => [r.day, r.payments]),
    ).toEqual([
      ['2015-04-01', 3],
      ['2015-04-02', 1],
    ]);
  });

  it('the daily report agrees with the export, as JSON and as CSV', async () => {
    const paid = [
      { paidAt: '2015-05-03T05:00:00.000Z', amount: '10.10', paymentMethod: 'Visa' },
      { paidAt: '2015-05-03T06:00:00.000Z', amount: '20.20', paymentMethod: 'MpesaKE' },
      { paidAt: '2015-05-03T22:00:00.000Z', amount: '30.30', paymentMethod: 'Visa' },
      { paidAt: '2015-05-04T09:00:00.000Z', amount: '40.40', paymentMethod: 'Visa' },
      { paidAt: '2015-05-04T09:30:00.000Z', amount: '5000', currency: 'UGX' },
    ];
    const orders = [];
    for (const options of paid) orders.push(await seed.moneyOrder(options));
    await seed.moneyRefund(orders[0].id, {
      status: 'accepted',
      amount: '10.10',
      acceptedAt: '2015-05-04T10:00:00.000Z',
    });
    await seed.moneyOrder({
      paidAt: '2015-05-04T11:00:00.000Z',
      reversedAt: '2015-05-04T12:00:00.000Z',
      amount: '99.99',
    });
    await seed.moneyOrder({ failedAt: '2015-05-03T08:00:00.000Z', paymentMethod: null });
    await seed.moneyOrder({ failedAt: '2015-05-04T08:00:00.000Z', paymentMethod: null });
    await seed.moneyOrder({ cancelledAt: '2015-05-04T09:00:00.000Z', paymentMethod: null });

    const range = 'from=2015-05-03&to=2015-05-04&tz=Africa/Nairobi';
    const { rows } = await exportRows(range);
    const report = await get(`/v1/admin/reports/daily?${range}`);
    expect(report.status).toBe(200);
    expect(report.body).toMatchObject({
      from: '2015-05-02T21:00:00.000Z',
      to: '2015-05-04T21:00:00.000Z',
      tz: 'Africa/Nairobi',
    });
    type ReportRow = Record<string, string | number | null>;
    const reportRows = report.body.rows as ReportRow[];

    // Every report row's sums from the export's rows of that local day, currency and method.
    const keyOf = (day: string, currency: string, method: string | null) =>
      `${day} ${currency} ${method ?? ''}`;
    const fromExport = new Map<
      string,
      { count: Record<string, number>; sum: Record<string, bigint> }
    >();
    for (const row of rows) {
      const key = keyOf(
        row.occurred_at_local.slice(0, 10),
        row.currency,
        row.payment_method || null,
      );
      const entry = fromExport.get(key) ?? { count: {}, sum: {} };
      entry.count[row.type] = (entry.count[row.type] ?? 0) + 1;
      entry.sum[row.type] = (entry.sum[row.type] ?? 0n) + cents(row.amount);
      fromExport.set(key, entry);
    }
    const withMoney = reportRows.filter(
      (r) => Number(r.payments) + Number(r.refunds) + Number(r.reversals) > 0,
    );
    expect(
      withMoney
        .map((r) => keyOf(String(r.day), String(r.currency), r.payment_method as string | null))
        .sort(),
    ).toEqual([...fromExport.keys()].sort());
    for (const r of withMoney) {
      const entry = fromExport.get(
        keyOf(String(r.day), String(r.currency), r.payment_method as string | null),
      )!;
      expect([r.payments, r.refunds, r.reversals]).toEqual([
        entry.count.payment ?? 0,
        entry.count.refund ?? 0,
        entry.count.reversal ?? 0,
      ]);
      expect(cents(String(r.payments_amount))).toBe(entry.sum.payment ?? 0n);
      expect(cents(String(r.refunds_amount))).toBe(entry.sum.refund ?? 0n);
      expect(cents(String(r.reversals_amount))).toBe(entry.sum.reversal ?? 0n);
      expect(cents(String(r.net_amount))).toBe(
        (entry.sum.payment ?? 0n) + (entry.sum.refund ?? 0n) + (entry.sum.reversal ?? 0n),
      );
    }
    // 22:00 UTC on the 3rd is the 4th in Nairobi.
    const visa4 = reportRows.find(
      (r) => r.day === '2015-05-04' && r.currency === 'KES' && r.payment_method === 'Visa',
    );
    expect(visa4).toMatchObject({
      payments: 3,
      payments_amount: '170.69',
      refunds: 1,
      refunds_amount: '-10.10',
      reversals: 1,
      reversals_amount: '-99.99',
      net_amount: '60.60',
    });
    const failures = reportRows.filter((r) => r.payment_method === null);
    expect(failures.map((r) => [r.day, r.failed, r.cancelled])).toEqual([
      ['2015-05-03', 1, 0],
      ['2015-05-04', 1, 1],
    ]);

    const csv = await get(`/v1/admin/reports/daily.csv?${range}`).buffer(true);
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const parsed = parse(csv.text, { columns: true }) as Row[];
    expect(parsed.map((r) => ({ ...r }))).toEqual(
      reportRows.map((r) =>
        Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null ? '' : String(v)])),
      ),
    );
  });

  it('takes the columns asked for, in that order, and a byte-order mark only for Excel', async () => {
    const order = await seed.moneyOrder({ paidAt: '2015-06-01T10:00:00.000Z', amount: '12.34' });
    const range = 'from=2015-06-01&to=2015-06-01&tz=UTC';
    const plain = await exportRows(`${range}&columns=amount,merchant_reference,type`);
    expect(plain.text.charCodeAt(0)).not.toBe(0xfeff);
    expect(plain.text.split('\n')[0]).toBe('amount,merchant_reference,type');
    expect(plain.rows).toEqual([
      { amount: '12.34', merchant_reference: order.reference, type: 'payment' },
    ]);
    const excel = await exportRows(`${range}&excel=1`);
    expect(excel.text.charCodeAt(0)).toBe(0xfeff);
    expect(excel.rows).toHaveLength(1);
    // The merchant account only when asked for; the one account here is `default`.
    const withAccount = await exportRows(`${range}&columns=account,amount&account=default`);
    expect(withAccount.rows).toEqual([{ account: 'default', amount: '12.34' }]);
    // An empty range is a header alone.
    const empty = await exportRows('from=2015-06-02&to=2015-06-02&tz=UTC');
    expect(empty.rows).toEqual([]);
    expect(empty.text).toBe(`${DEFAULT_COLUMNS.join(',')}\n`);
  });

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

  it("masks cards and phones in the file as the API's views do", async () => {
    const samples = [
      '+254712345678',
      '0712 345 678',
      '254712345678',
      '444444xxxxxx4444',
      '4444 **** 4444',
      '12345',
      'abc',
      '',
      '25471234567X',
      '+254 712-345-678',
      '++254712',
      '(0)712.345.678',
    ];
    const rows = (await dataSource.query(
      `SELECT s.value, ${masked('s.value')} AS masked
         FROM unnest($1::text[]) AS s(value)`,
      [samples],
    )) as { value: string; masked: string }[];
    expect(rows.map((row) => row.masked)).toEqual(
      samples.map((sample) => maskAccount(sample) ?? ''),
    );
  });

  describe('bad input: a 400 naming the field, before any byte of a file', () => {
    const cases: [string, string, string][] = [
      ['from after to', 'from=2015-03-12&to=2015-03-10', 'from'],
      ['from the day after the to day', 'from=2015-03-11&to=2015-03-10', 'from'],
      ['from after a to instant', 'from=2015-03-10T10:00:01Z&to=2015-03-10T10:00:00Z', 'from'],
      ['a range over 366 days', 'from=2015-01-01&to=2016-01-02', 'to'],
      ['an unknown zone', 'from=2015-03-10&to=2015-03-10&tz=Mars/Olympus', 'tz'],
      ['a currency no checkout takes', 'from=2015-03-10&to=2015-03-10&currency=XYZ', 'currency'],
      ['an unknown column', 'from=2015-03-10&to=2015-03-10&columns=amount,card_number', 'columns'],
      ['a column twice', 'from=2015-03-10&to=2015-03-10&columns=amount,amount', 'columns'],
      ['a date that is not one', 'from=2015-02-30&to=2015-03-10', 'from'],
      ['an instant without an offset', 'from=2015-03-10T10:00:00&to=2015-03-10', 'from'],
      ['no range', 'tz=UTC', 'from'],
      ['an unknown type', 'from=2015-03-10&to=2015-03-10&type=fee', 'type'],
      [
        'an account this service does not have',
        'from=2015-03-10&to=2015-03-10&account=ke',
        'account',
      ],
      [
        'an account that is no account id',
        'from=2015-03-10&to=2015-03-10&account=K%20E',
        'account',
      ],
      ['excel other than 0 or 1', 'from=2015-03-10&to=2015-03-10&excel=yes', 'excel'],
    ];
    it.each(cases)('%s', async (_name, query, field) => {
      const response = await get(`/v1/admin/exports/payments.csv?${query}`);
      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.body.error.code).toBe('validation_failed');
      expect(response.body.error.errors.map((e: { field: string }) => e.field)).toContain(field);
    });

    it('the daily report refuses the same range problems', async () => {
      for (const [query, field] of [
        ['from=2015-03-12&to=2015-03-10', 'from'],
        ['from=2015-01-01&to=2016-01-02', 'to'],
        ['from=2015-03-10&to=2015-03-10&tz=Nowhere', 'tz'],
      ]) {
        for (const path of ['/v1/admin/reports/daily', '/v1/admin/reports/daily.csv']) {
          const response = await get(`${path}?${query}`);
          expect(response.status).toBe(400);
          expect(response.body.error.errors.map((e: { field: string }) => e.field)).toContain(
            field,
          );
        }
      }
    });

    it('a year of whole days (366 in a leap year) is allowed', async () => {
      const response = await get('/v1/admin/reports/daily?from=2016-01-01&to=2016-12-31&tz=UTC');
      expect(response.status).toBe(200);
    });

    it('refuses a report of more rows than it answers, naming `to`; a shorter range is answered', async () => {
      // 28 payment methods' failures on each day of 1991 (UTC): 10,220 day × method rows.
      await dataSource.query(
        `INSERT INTO orders (merchant_reference, order_tracking_id, kind, status, submission_status,
                             amount, currency, description, payment_method, failed_at,
                             created_at, updated_at, version)
         SELECT 'rows-' || n, gen_random_uuid()::text, 'hosted', 'failed', 'submitted', 10.00, 'KES',
                'row cap', 'Method ' || (n % 28),
                timestamptz '1991-01-01 12:00Z' + (n / 28) * interval '1 day',
                timestamptz '1991-01-01 11:00Z' + (n / 28) * interval '1 day',
                timestamptz '1991-01-01 12:00Z' + (n / 28) * interval '1 day', 2
           FROM generate_series(0, 28 * 365 - 1) AS n`,
      );
      try {
        const year = await get('/v1/admin/reports/daily?from=1991-01-01&to=1991-12-31&tz=UTC');
        expect(year.status).toBe(400);
        expect(year.body.error.errors).toEqual([
          { field: 'to', reason: expect.stringMatching(/more than 10000 rows/) },
        ]);
        const half = await get('/v1/admin/reports/daily?from=1991-01-01&to=1991-06-30&tz=UTC');
        expect(half.status).toBe(200);
        expect(half.body.rows).toHaveLength(28 * 181);
      } finally {
        await dataSource.query(`DELETE FROM orders WHERE merchant_reference LIKE 'rows-%'`);
      }
    }, 60_000);

    it('asks for an admin key', async () => {
      const response = await request(service.apiUrl).get(
        '/v1/admin/exports/payments.csv?from=2015-03-10&to=2015-03-10',
      );
      expect(response.status).toBe(401);
      const shop = await request(service.apiUrl)
        .get('/v1/admin/reports/daily?from=2015-03-10&to=2015-03-10')
        .set(service.shopAuth);
      expect(shop.status).toBe(403);
    });
  });
});
