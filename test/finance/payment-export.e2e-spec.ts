import { DataSource } from 'typeorm';
import { maskAccount } from '../../libs/checkout/src/orders/order-view';
import { masked } from '../../libs/checkout/src/finance/money-movements';
import { SeedRows } from '../support/seed-rows';
import { cents, DEFAULT_COLUMNS, FinanceApi, Row, startFinanceApi, total } from './finance-support';

/** What the payment export holds: each movement once, signed, masked and inert; the columns asked for. */
describe('payment export and daily report (api + Postgres)', () => {
  let dataSource: DataSource;
  let seed: SeedRows;
  let exportRows: FinanceApi['exportRows'];
  let api: FinanceApi | undefined;

  beforeAll(async () => {
    api = await startFinanceApi();
    ({ dataSource, seed, exportRows } = api);
  }, 60_000);
  afterAll(() => api?.close());

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
});
