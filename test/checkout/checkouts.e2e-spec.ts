import request from 'supertest';
import { RunningService, startService } from '../support/service';
import { getOrder, hostedBody, postCheckout, pushBody } from './support';

describe('checkouts: hosted page and mobile money push (api + sandbox over HTTP)', () => {
  let service: RunningService;

  beforeAll(async () => {
    service = await startService();
  });
  afterAll(() => service?.close());

  it('creates a hosted checkout: row written, gateway order made, redirect_url answered', async () => {
    const body = hostedBody({ amount: 1500.5 });
    const created = await postCheckout(service, body);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      reference: body.reference,
      attempt: 1,
      order_tracking_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'pending',
      redirect_url: expect.stringContaining(created.body.order_tracking_id),
      amount: '1500.50',
      currency: 'KES',
      created_at: expect.any(String),
      status_token: expect.stringMatching(/^pst_[A-Za-z0-9_-]{43}$/),
    });
    const atGateway = await service.sandbox.control.order(created.body.order_tracking_id);
    expect(atGateway).toMatchObject({
      merchant_reference: body.reference,
      amount: 1500.5,
      currency: 'KES',
      state: 'pending',
    });

    const order = await getOrder(service, String(body.reference));
    expect(order.status).toBe(200);
    expect(order.body).toMatchObject({
      reference: body.reference,
      order_tracking_id: created.body.order_tracking_id,
      kind: 'hosted',
      status: 'pending',
      amount: '1500.50',
    });
    expect(order.body.timeline.map((e: { type: string }) => e.type)).toEqual([
      'created',
      'submitted',
    ]);
    // The tracking id finds the same order.
    const byTracking = await getOrder(service, created.body.order_tracking_id);
    expect(byTracking.body.reference).toBe(body.reference);
  });

  it('pushes a mobile money prompt and stores the generated reference beside ours', async () => {
    const body = pushBody({ amount: '250' });
    const created = await postCheckout(service, body, '/v1/checkouts/mobile-money');
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      reference: body.reference,
      order_tracking_id: expect.any(String),
      status: 'pending',
      amount: '250.00',
      currency: 'KES',
    });
    expect(created.body.push_merchant_reference).toEqual(expect.any(String));
    expect(created.body.push_merchant_reference).not.toBe(body.reference);
    expect(created.body.business_number).toEqual(expect.any(String));
    expect(created.body.account_number).toEqual(expect.any(String));

    const byPushReference = await getOrder(service, created.body.push_merchant_reference);
    expect(byPushReference.status).toBe(200);
    expect(byPushReference.body).toMatchObject({ reference: body.reference, kind: 'mobile_money' });
  });

  it('takes the phone as the customer typed it and prompts it in the form push takes', async () => {
    for (const [typed, country, currency, sent] of [
      ['0712 345 678', undefined, 'KES', '254712345678'],
      ['(0110) 123-456', undefined, 'KES', '254110123456'],
      ['+254 733 123 456', 'KE', 'KES', '254733123456'],
    ] as const) {
      const body = pushBody({ phone: typed, country, currency });
      const created = await postCheckout(service, body, '/v1/checkouts/mobile-money');
      expect(created.status).toBe(201);
      const { recent } = await service.sandbox.control.requests();
      const stk = recent.filter((call) => call.operation === 'Stk').pop();
      expect(JSON.parse(stk?.body ?? '{}')).toMatchObject({ msisdn: sent });
    }
  });

  it('takes the billing phone as typed and sends it to the gateway in international form', async () => {
    const body = hostedBody({
      customer: { email: 'amina@example.com', phone: '0712 345 678', country_code: 'KE' },
    });
    const created = await postCheckout(service, body);
    expect(created.status).toBe(201);
    const { recent } = await service.sandbox.control.requests();
    const submitted = recent.filter((call) => call.operation === 'SubmitOrderRequest').pop();
    expect(JSON.parse(submitted?.body ?? '{}')).toMatchObject({
      billing_address: { phone_number: '+254712345678', country_code: 'KE' },
    });
    const unreadable = await postCheckout(
      service,
      hostedBody({ customer: { email: 'amina@example.com', phone: '12 34' } }),
    );
    expect(unreadable.status).toBe(400);
    expect(unreadable.body.error.errors[0]).toMatchObject({ field: 'customer.phone' });
  });

  it('shows a completed payment with its details once the gateway reports it', async () => {
    const body = hostedBody();
    const created = await postCheckout(service, body);
    await service.sandbox.control.settle(created.body.order_tracking_id, 'completed', 'card');
    // The return visit syncs the order from the gateway.
    await request(service.apiUrl)
      .get(`/v1/checkouts/return?OrderTrackingId=${created.body.order_tracking_id}`)
      .expect(303);
    const order = await getOrder(service, String(body.reference));
    expect(order.body).toMatchObject({
      status: 'completed',
      confirmation_code: expect.any(String),
      paid_amount: '1500.00',
      paid_currency: 'KES',
      paid_at: expect.stringMatching(/Z$/),
    });
    const changes = order.body.timeline.filter(
      (e: { type: string }) => e.type === 'status_changed',
    );
    expect(changes).toEqual([
      expect.objectContaining({ from_status: 'pending', to_status: 'completed', source: 'return' }),
    ]);
  });
});
