import request from 'supertest';
import { DataSource } from 'typeorm';
import { OrderEntity } from '@app/persistence';
import { RunningService, startService } from '../support/service';
import { hostedBody, postCheckout, pushBody } from './support';

type Problem = { field: string; reason: string };

describe('checkouts: validation (400 with every field, nothing written) and API keys', () => {
  let service: RunningService;
  let dataSource: DataSource;
  const gatewayCalls = async () => {
    const { counts } = await service.sandbox.control.requests();
    return (counts.SubmitOrderRequest ?? 0) + (counts.Stk ?? 0);
  };
  const orderCount = () => dataSource.getRepository(OrderEntity).count();

  beforeAll(async () => {
    service = await startService();
    dataSource = service.apiApp.get(DataSource);
  });
  afterAll(() => service?.close());

  const expectRefused = async (
    body: Record<string, unknown>,
    expected: { field: string; reason?: RegExp }[],
    path = '/v1/checkouts',
  ) => {
    const [ordersBefore, callsBefore] = [await orderCount(), await gatewayCalls()];
    const answer = await postCheckout(service, body, path);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('validation_failed');
    const fields = (answer.body.error.errors as Problem[]).map((p) => p.field);
    for (const { field, reason } of expected) {
      expect(fields).toContain(field);
      if (reason) {
        const reasons = (answer.body.error.errors as Problem[])
          .filter((p) => p.field === field)
          .map((p) => p.reason);
        expect(reasons.some((r) => reason.test(r))).toBe(true);
      }
    }
    expect(await orderCount()).toBe(ordersBefore);
    expect(await gatewayCalls()).toBe(callsBefore);
    return answer.body.error.errors as Problem[];
  };

  it.each([
    ['zero', '0'],
    ['negative', '-5'],
    ['three decimals', '10.005'],
    ['a word', 'ten'],
    ['a number with three decimals', 10.005],
    ['a negative number', -1],
    ['a tiny float', 1e-7],
    ['a boolean', true],
  ])('refuses an amount that is %s', async (_label, amount) => {
    await expectRefused(hostedBody({ amount }), [{ field: 'amount', reason: /positive amount/ }]);
  });

  it('accepts amounts as a decimal string or a JSON number with up to 2 decimals', async () => {
    for (const amount of ['10', '10.5', 10.25, 7]) {
      const answer = await postCheckout(service, hostedBody({ amount }));
      expect(answer.status).toBe(201);
    }
  });

  it('refuses a currency outside the configured list', async () => {
    await expectRefused(hostedBody({ currency: 'EUR' }), [
      { field: 'currency', reason: /configured currencies/ },
    ]);
  });

  it.each([
    ['empty', ''],
    ['blank', '   '],
    ['101 characters', 'x'.repeat(101)],
  ])('refuses a description that is %s', async (_label, description) => {
    await expectRefused(hostedBody({ description }), [{ field: 'description' }]);
  });

  it.each([
    ['51 characters', 'R'.repeat(51)],
    ['a space', 'ORDER 1'],
    ['a hash', 'ORDER#1'],
    ['empty', ''],
  ])('refuses a reference with %s', async (_label, reference) => {
    await expectRefused(hostedBody({ reference }), [{ field: 'reference' }]);
  });

  it('accepts a 50-character reference of every allowed character', async () => {
    const reference = `a.b_c:d/e-${Date.now()}`.padEnd(50, 'Z');
    const answer = await postCheckout(service, hostedBody({ reference }));
    expect(answer.status).toBe(201);
    expect(answer.body.reference).toBe(reference);
  });

  it('generates a reference when none is given', async () => {
    const answer = await postCheckout(service, hostedBody({ reference: undefined }));
    expect(answer.status).toBe(201);
    expect(answer.body.reference).toMatch(/^chk_[0-9a-f]{24}$/);
  });

  it('refuses a customer without an email or a phone, and bad customer fields', async () => {
    await expectRefused(hostedBody({ customer: { first_name: 'Amina' } }), [
      { field: 'customer', reason: /email or a phone/ },
    ]);
    await expectRefused(hostedBody({ customer: undefined }), [{ field: 'customer' }]);
    await expectRefused(
      hostedBody({ customer: { email: 'not-an-email', phone: '12', country_code: 'KEN' } }),
      [
        { field: 'customer.email' },
        { field: 'customer.phone' },
        { field: 'customer.country_code' },
      ],
    );
  });

  it('refuses bad return and cancel URLs, redirect mode and unknown fields', async () => {
    await expectRefused(
      hostedBody({
        return_url: 'javascript:alert(1)',
        cancel_url: 'not a url',
        redirect_mode: 'POPUP',
        amout: '10',
      }),
      [
        { field: 'return_url' },
        { field: 'cancel_url' },
        { field: 'redirect_mode' },
        { field: 'amout' },
      ],
    );
  });

  it('checks subscription dates: ISO, start in the future, end after start', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const subscription = (overrides: Record<string, unknown>) =>
      hostedBody({
        subscription: {
          account_number: 'SUB-1',
          start_date: '2099-01-01',
          end_date: '2099-12-31',
          frequency: 'monthly',
          ...overrides,
        },
      });
    await expectRefused(subscription({ start_date: '01-01-2099' }), [
      { field: 'subscription.start_date', reason: /ISO 8601/ },
    ]);
    await expectRefused(subscription({ start_date: today }), [
      { field: 'subscription.start_date', reason: /future/ },
    ]);
    await expectRefused(subscription({ end_date: '2098-12-31' }), [
      { field: 'subscription.end_date', reason: /after start_date/ },
    ]);
    await expectRefused(subscription({ frequency: 'HOURLY', account_number: '' }), [
      { field: 'subscription.frequency' },
      { field: 'subscription.account_number' },
    ]);
    const accepted = await postCheckout(service, subscription({}));
    expect(accepted.status).toBe(201);
  });

  it('names every failing field at once', async () => {
    const errors = await expectRefused(
      { amount: '0', currency: 'EUR', description: '', reference: 'bad ref', customer: {} },
      [
        { field: 'amount' },
        { field: 'currency' },
        { field: 'description' },
        { field: 'reference' },
        { field: 'customer' },
      ],
    );
    expect(errors.length).toBeGreaterThanOrEqual(5);
  });

  it('refuses a Content-Type without a body as a body missing every field', async () => {
    const answer = await request(service.apiUrl)
      .post('/v1/checkouts')
      .set(service.shopAuth)
      .set('Content-Type', 'application/json');
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('validation_failed');
    const fields = (answer.body.error.errors as Problem[]).map((problem) => problem.field);
    expect(fields).toEqual(
      expect.arrayContaining(['amount', 'currency', 'description', 'customer']),
    );
  });

  it('push needs a phone of 9–15 digits and a configured network', async () => {
    await expectRefused(
      pushBody({ phone: '0712', network: 'MTNUG' }),
      [{ field: 'phone' }, { field: 'network', reason: /mobile money networks/ }],
      '/v1/checkouts/mobile-money',
    );
    await expectRefused(
      pushBody({ phone: undefined, network: undefined }),
      [{ field: 'phone' }, { field: 'network' }],
      '/v1/checkouts/mobile-money',
    );
  });

  it('refuses a phone that is not a mobile number of the checkout country, saying why', async () => {
    const push = '/v1/checkouts/mobile-money';
    await expectRefused(
      pushBody({ phone: '020 212 3456' }),
      [{ field: 'phone', reason: /^is a landline number; a PIN prompt needs a Kenyan mobile/ }],
      push,
    );
    await expectRefused(
      pushBody({ phone: '+256 772 123 456' }),
      [{ field: 'phone', reason: /^is a Ugandan number; this checkout needs a Kenyan/ }],
      push,
    );
    await expectRefused(
      // An explicit country wins over the currency's.
      pushBody({ phone: '+254 712 345 678', country: 'UG', currency: 'KES' }),
      [{ field: 'phone', reason: /^is a Kenyan number; this checkout needs a Ugandan/ }],
      push,
    );
    await expectRefused(
      pushBody({ currency: 'USD' }),
      [{ field: 'country', reason: /^is required when the currency names no country/ }],
      push,
    );
  });

  describe('API keys', () => {
    const routes: [string, string][] = [
      ['post', '/v1/checkouts'],
      ['post', '/v1/checkouts/mobile-money'],
      ['get', '/v1/orders/ANY-REF'],
      ['post', '/v1/orders/ANY-REF/cancel'],
    ];
    const call = (method: string, path: string) =>
      method === 'get'
        ? request(service.apiUrl).get(path)
        : request(service.apiUrl).post(path).send(hostedBody());

    it.each(routes)(
      '%s %s answers 401 without a key, with a wrong key, and with an admin key',
      async (method, path) => {
        const none = await call(method, path);
        expect(none.status).toBe(401);
        expect(none.body.error.code).toBe('unauthenticated');
        expect((await call(method, path).set('Authorization', 'Bearer wrong-key')).status).toBe(
          401,
        );
        expect((await call(method, path).set('Authorization', service.shopKey)).status).toBe(401);
        // Admin keys are for admin routes only; the shop routes do not know them.
        expect((await call(method, path).set(service.adminAuth)).status).toBe(401);
      },
    );

    it('an unknown order is a 404 for a valid key', async () => {
      const answer = await request(service.apiUrl).get('/v1/orders/NOPE-1').set(service.shopAuth);
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe('order_not_found');
    });
  });

  it('documents the checkout bodies with examples at /docs', async () => {
    const answer = await request(service.apiUrl).get('/docs-json');
    expect(answer.status).toBe(200);
    const schemas = answer.body.components.schemas;
    expect(schemas.CreateCheckoutDto.properties.amount.example).toBe('1500.00');
    expect(schemas.CreateMobileMoneyCheckoutDto.properties.network.example).toBe('MPESA');
    expect(answer.body.paths['/v1/checkouts']).toBeDefined();
    expect(answer.body.paths['/v1/orders/{reference}/cancel']).toBeDefined();
  });
});
