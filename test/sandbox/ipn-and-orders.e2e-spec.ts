import { RunningSandbox, startSandbox } from '../support/sandbox';
import { GatewayCaller, startMerchantSandbox } from './gateway-http';

describe('sandbox gateway: IPN registration, orders and push', () => {
  let sandbox: RunningSandbox;
  let gw: GatewayCaller;
  let ipnId: string;

  beforeAll(async () => {
    ({ sandbox, gw, ipnId } = await startMerchantSandbox('http://127.0.0.1:9/ipn-never-contacted'));
  });
  afterAll(() => sandbox.close());

  describe('RegisterIPN and GetIpnList', () => {
    it('registers with the gateway shape and spelling, created_date with seven digits and Z', async () => {
      const res = await gw.post('/URLSetup/RegisterIPN', {
        url: 'http://shop.example/ipn/post',
        ipn_notification_type: 'post',
      });
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({
        url: 'http://shop.example/ipn/post',
        ipn_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        notification_type: 1,
        ipn_notification_type_description: 'POST',
        ipn_status: 1,
        ipn_status_decription: 'Active',
        error: null,
        status: '200',
      });
      expect(res.json).not.toHaveProperty('ipn_status_description');
      expect(res.json.created_date).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{7}Z$/);
    });

    it('is idempotent by URL: the original ipn_id and instant, trimmed and without Z', async () => {
      const first = await gw.post('/URLSetup/RegisterIPN', {
        url: 'http://shop.example/ipn/again',
        ipn_notification_type: 'GET',
      });
      const again = await gw.post('/URLSetup/RegisterIPN', {
        url: 'http://shop.example/ipn/again',
        ipn_notification_type: 'GET',
      });
      expect(again.json.ipn_id).toBe(first.json.ipn_id);
      expect(again.json.created_date).not.toMatch(/Z$/);
      expect(again.json.created_date).not.toMatch(/0$/);
      expect(Date.parse(`${again.json.created_date}Z`)).toBe(Date.parse(first.json.created_date));
      const list = await gw.get('/URLSetup/GetIpnList');
      expect(Array.isArray(list.json)).toBe(true);
      const same = list.json.filter(
        (item: { url: string }) => item.url === 'http://shop.example/ipn/again',
      );
      expect(same).toHaveLength(1);
      expect(same[0]).toMatchObject({ ipn_id: first.json.ipn_id, error: null, status: '200' });
    });

    it('validates ipn_notification_type by length before value, and ignores misspelled fields', async () => {
      const long = await gw.post('/URLSetup/RegisterIPN', {
        url: 'http://shop.example/x',
        ipn_notification_type: 'DELETE',
      });
      expect(long.json.status).toBe('500');
      expect(long.json.error.message).toMatch(/4 characters/);
      const wrongValue = await gw.post('/URLSetup/RegisterIPN', {
        url: 'http://shop.example/x',
        ipn_notification_type: 'PUT',
      });
      expect(wrongValue.json.error.message).not.toMatch(/characters/);
      const misspelled = await gw.post('/URLSetup/RegisterIPN', {
        url: 'http://shop.example/x',
        ipn_notification_typ: 'GET',
      });
      expect(misspelled.json.error.code).toBe('invalid_api_request_parameters');
    });

    it('rate-limits one success per interval from the last success: 409, message-wrapped, no Retry-After', async () => {
      const limited = await startSandbox({ ipnRateLimitMs: 400 });
      try {
        const caller = await new GatewayCaller(limited).authenticate();
        const body = { url: 'http://shop.example/rl', ipn_notification_type: 'GET' };
        expect((await caller.post('/URLSetup/RegisterIPN', body)).json.status).toBe('200');
        const tooSoon = await caller.post('/URLSetup/RegisterIPN', body);
        expect(tooSoon.status).toBe(409);
        expect(tooSoon.headers['retry-after']).toBeUndefined();
        expect(Object.keys(tooSoon.json)).toEqual(['message']);
        expect(JSON.parse(tooSoon.json.message)).toHaveProperty('code');
        await new Promise((resolve) => setTimeout(resolve, 450));
        expect((await caller.post('/URLSetup/RegisterIPN', body)).status).toBe(200);
      } finally {
        await limited.close();
      }
    });
  });

  describe('SubmitOrderRequest', () => {
    it('creates an order: tracking id, echoed id, redirect_url on the sandbox hosted page', async () => {
      const order = gw.order(ipnId);
      const res = await gw.post('/Transactions/SubmitOrderRequest', order);
      expect(res.status).toBe(200);
      expect(res.json).toEqual({
        order_tracking_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        merchant_reference: order.id,
        redirect_url: `${sandbox.origin}/pesapaliframe/PesapalIframe3/Index?OrderTrackingId=${res.json.order_tracking_id}`,
        error: null,
        status: '200',
      });
    });

    it('declines ids of 51 to 150 characters generically, without naming the length', async () => {
      const fifty = await gw.post(
        '/Transactions/SubmitOrderRequest',
        gw.order(ipnId, { id: 'a'.repeat(50) }),
      );
      expect(fifty.json.status).toBe('200');
      for (const length of [51, 150]) {
        const res = await gw.post(
          '/Transactions/SubmitOrderRequest',
          gw.order(ipnId, { id: 'b'.repeat(length) }),
        );
        expect(res.status).toBe(200);
        expect(res.json.status).toBe('500');
        expect(res.json.error.message).not.toMatch(/length|characters|long/i);
      }
    });

    it('returns the original order at its original amount when an id is re-used', async () => {
      const first = await gw.post(
        '/Transactions/SubmitOrderRequest',
        gw.order(ipnId, { id: 'reuse-1', amount: 150 }),
      );
      const again = await gw.post(
        '/Transactions/SubmitOrderRequest',
        gw.order(ipnId, { id: 'reuse-1', amount: 999 }),
      );
      expect(again.json.error).toBeNull();
      expect(again.json.order_tracking_id).toBe(first.json.order_tracking_id);
      const status = await gw.get(
        `/Transactions/GetTransactionStatus?orderTrackingId=${first.json.order_tracking_id}`,
      );
      expect(status.json.amount).toBe(150);
    });

    it('keeps amounts exactly as sent', async () => {
      const res = await gw.post(
        '/Transactions/SubmitOrderRequest',
        JSON.stringify(gw.order(ipnId)).replace('"amount":100', '"amount":1234.50'),
      );
      const status = await gw.get(
        `/Transactions/GetTransactionStatus?orderTrackingId=${res.json.order_tracking_id}`,
      );
      expect(status.text).toContain('"amount":1234.50,');
    });

    it('rejects an unknown notification_id with InvalidIpnId', async () => {
      const res = await gw.post(
        '/Transactions/SubmitOrderRequest',
        gw.order(ipnId, { notification_id: '00000000-0000-4000-8000-000000000000' }),
      );
      expect(res.json.status).toBe('500');
      expect(res.json.error.code).toBe('InvalidIpnId');
    });

    it('requires billing_address but accepts an empty one', async () => {
      const order = gw.order(ipnId);
      delete order.billing_address;
      const missing = await gw.post('/Transactions/SubmitOrderRequest', order);
      expect(missing.json.error.code).toBe('invalid_api_request_parameters');
      expect(missing.json.error.message).toMatch(/Billing Address/);
      const empty = await gw.post(
        '/Transactions/SubmitOrderRequest',
        gw.order(ipnId, { billing_address: {} }),
      );
      expect(empty.json.status).toBe('200');
    });

    it('validates currency against the lookup table', async () => {
      expect(
        (await gw.post('/Transactions/SubmitOrderRequest', gw.order(ipnId, { currency: 'UGX' })))
          .json.status,
      ).toBe('200');
      const bad = await gw.post(
        '/Transactions/SubmitOrderRequest',
        gw.order(ipnId, { currency: 'XYZ' }),
      );
      expect(bad.json.status).toBe('500');
      expect(bad.json.error.message).toMatch(/currency/i);
    });

    it('takes subscription dates as dd-MM-yyyy in the future, end before start accepted, ISO rejected', async () => {
      const future = new Date(Date.now() + 10 * 86_400_000);
      const ddMMyyyy = `${String(future.getUTCDate()).padStart(2, '0')}-${String(future.getUTCMonth() + 1).padStart(2, '0')}-${future.getUTCFullYear()}`;
      const sub = (details: Record<string, string>): Record<string, unknown> =>
        gw.order(ipnId, { account_number: 'ACC-1', subscription_details: details });
      const ok = await gw.post(
        '/Transactions/SubmitOrderRequest',
        sub({ start_date: ddMMyyyy, end_date: '01-01-2020', frequency: 'daily' }),
      );
      expect(ok.json.status).toBe('200');
      const iso = await gw.post(
        '/Transactions/SubmitOrderRequest',
        sub({
          start_date: future.toISOString().slice(0, 10),
          end_date: '01-01-2030',
          frequency: 'DAILY',
        }),
      );
      expect(iso.json.status).toBe('500');
      const past = await gw.post(
        '/Transactions/SubmitOrderRequest',
        sub({ start_date: '01-01-2020', end_date: '01-01-2030', frequency: 'DAILY' }),
      );
      expect(past.json.status).toBe('500');
      expect(past.json.error.message).toMatch(/future/);
    });

    it('ignores unknown fields', async () => {
      const res = await gw.post(
        '/Transactions/SubmitOrderRequest',
        gw.order(ipnId, { colour: 'blue', amout: 5 }),
      );
      expect(res.json.status).toBe('200');
    });
  });

  describe('push (/transactions/stk)', () => {
    const push = (overrides: Record<string, unknown> = {}): Record<string, unknown> =>
      gw.order(ipnId, { msisdn: '254700000009', payment_method: 'MPESA', ...overrides });

    it('answers a generated merchant_reference, business_number, account_number and a null redirect_url', async () => {
      const body = push();
      const res = await gw.post('/transactions/stk', body);
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({
        order_tracking_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        business_number: expect.any(String),
        account_number: expect.any(String),
        redirect_url: null,
        error: null,
        status: '200',
      });
      expect(res.json.merchant_reference).not.toBe(body.id);
      const byId = await gw.get(
        `/Transactions/GetTransactionByMerchantReference?merchantReference=${body.id}`,
      );
      expect(byId.json.order_tracking_id).toBe(res.json.order_tracking_id);
      expect(byId.json.merchant_reference).toBe(body.id);
    });

    it('accepts an unroutable msisdn', async () => {
      expect(
        (await gw.post('/transactions/stk', push({ msisdn: 'not-a-phone' }))).json.status,
      ).toBe('200');
    });

    it('rejects foreign networks with Invalid Payment method provided (HTTP 200)', async () => {
      for (const method of ['TIGOTZ', 'MTNUG']) {
        const res = await gw.post('/transactions/stk', push({ payment_method: method }));
        expect(res.status).toBe(200);
        expect(res.json.error.message).toBe('Invalid Payment method provided');
      }
    });

    it('answers a missing required field with HTTP 400 and modelState', async () => {
      const body = push();
      delete body.msisdn;
      const res = await gw.post('/transactions/stk', body);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({
        message: expect.any(String),
        modelState: { 'request.msisdn': [expect.any(String)] },
      });
    });

    it('resolves by the phone number: ending in 1 declines, anything else completes', async () => {
      const declined = await gw.post('/transactions/stk', push({ msisdn: '254700000001' }));
      const completed = await gw.post('/transactions/stk', push({ msisdn: '254700000007' }));
      const status = (id: string): Promise<{ json: Record<string, unknown> }> =>
        gw.get(`/Transactions/GetTransactionStatus?orderTrackingId=${id}`);
      expect((await status(completed.json.order_tracking_id)).json.status_code).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 400));
      const failed = (await status(declined.json.order_tracking_id)).json;
      expect(failed).toMatchObject({
        status_code: 2,
        payment_status_code: 'request_terminated_by_user',
        description: null,
      });
      expect(failed.confirmation_code).toMatch(/^\d{1,8}$/);
      const paid = (await status(completed.json.order_tracking_id)).json;
      expect(paid).toMatchObject({
        status_code: 1,
        payment_status_code: '',
        description: null,
        status: '200',
      });
      expect(paid.confirmation_code).toMatch(/^[A-Z0-9]+$/);
      expect(paid.confirmation_code).toMatch(/[A-Z]/);
    });
  });
});
