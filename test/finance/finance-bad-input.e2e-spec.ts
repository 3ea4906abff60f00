import request from 'supertest';
import { DataSource } from 'typeorm';
import { RunningService } from '../support/service';
import { FinanceApi, startFinanceApi } from './finance-support';

/** What the export and the daily report refuse, and to whom. */
describe('payment export and daily report (api + Postgres)', () => {
  let service: RunningService;
  let dataSource: DataSource;
  let get: FinanceApi['get'];
  let api: FinanceApi | undefined;

  beforeAll(async () => {
    api = await startFinanceApi();
    ({ service, dataSource, get } = api);
  }, 60_000);
  afterAll(() => api?.close());

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
