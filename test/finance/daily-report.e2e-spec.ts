import { parse } from 'csv-parse/sync';
import { SeedRows } from '../support/seed-rows';
import { cents, FinanceApi, Row, startFinanceApi } from './finance-support';

/** The daily report: local days, and sums that agree with the export's rows. */
describe('payment export and daily report (api + Postgres)', () => {
  let seed: SeedRows;
  let get: FinanceApi['get'];
  let exportRows: FinanceApi['exportRows'];
  let api: FinanceApi | undefined;

  beforeAll(async () => {
    api = await startFinanceApi();
    ({ seed, get, exportRows } = api);
  }, 60_000);
  afterAll(() => api?.close());

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
});
