import { RunningSandbox, startSandbox } from '../support/sandbox';
import { eventually, GatewayCaller } from './gateway-http';
import { Receiver } from './receiver';

describe('sandbox gateway: IPN notifications', () => {
  let sandbox: RunningSandbox;
  let gw: GatewayCaller;
  let receiver: Receiver;
  let getIpn: string;
  let postIpn: string;

  beforeAll(async () => {
    sandbox = await startSandbox();
    gw = await new GatewayCaller(sandbox).authenticate();
    receiver = await new Receiver().start();
    getIpn = await gw.registerIpn(`${receiver.url}/ipn/get?shop=1`, 'GET');
    postIpn = await gw.registerIpn(`${receiver.url}/ipn/post`, 'POST');
  });
  afterAll(async () => {
    await sandbox.close();
    await receiver.stop();
  });
  beforeEach(async () => {
    receiver.received.length = 0;
    receiver.respond = () => ({ status: 200 });
    await sandbox.control.reset();
  });

  const create = async (
    ipnId: string,
    overrides: Record<string, unknown> = {},
  ): Promise<{ id: string; ref: string }> => {
    const body = gw.order(ipnId, overrides);
    const res = await gw.post('/Transactions/SubmitOrderRequest', body);
    return { id: res.json.order_tracking_id, ref: body.id as string };
  };
  const forOrder = (id: string) =>
    receiver.received.filter(
      (r) => r.url.searchParams.get('OrderTrackingId') === id || r.body.includes(id),
    );

  it('GET registration: the three fields in the query, the URL keeping its own query', async () => {
    const { id, ref } = await create(getIpn);
    await sandbox.control.settle(id, 'completed', 'card');
    const [hit] = await eventually(async () => (forOrder(id).length ? forOrder(id) : undefined));
    expect(hit.method).toBe('GET');
    expect(hit.url.pathname).toBe('/ipn/get');
    expect(Object.fromEntries(hit.url.searchParams)).toEqual({
      shop: '1',
      OrderTrackingId: id,
      OrderMerchantReference: ref,
      OrderNotificationType: 'IPNCHANGE',
    });
  });

  it('POST registration: a JSON body with the same three keys', async () => {
    const { id, ref } = await create(postIpn);
    await sandbox.control.settle(id, 'failed', 'card');
    const [hit] = await eventually(async () => (forOrder(id).length ? forOrder(id) : undefined));
    expect(hit.method).toBe('POST');
    expect(hit.contentType).toMatch(/application\/json/);
    expect(JSON.parse(hit.body)).toEqual({
      OrderTrackingId: id,
      OrderMerchantReference: ref,
      OrderNotificationType: 'IPNCHANGE',
    });
  });

  it('notifies push orders under the id sent', async () => {
    const body = gw.order(postIpn, { msisdn: '254711111118', payment_method: 'AIRTELKE' });
    const res = await gw.post('/transactions/stk', body);
    const id = res.json.order_tracking_id as string;
    const [hit] = await eventually(async () => (forOrder(id).length ? forOrder(id) : undefined));
    expect(JSON.parse(hit.body).OrderMerchantReference).toBe(body.id);
  });

  it('answers the API at once and retries a slow receiver until it acknowledges with 200', async () => {
    let calls = 0;
    receiver.respond = () => {
      calls += 1;
      return calls === 1
        ? { status: 200, delayMs: 1500 }
        : calls === 2
          ? { status: 503 }
          : { status: 200 };
    };
    const { id } = await create(postIpn);
    const started = Date.now();
    await sandbox.control.settle(id, 'completed', 'card');
    expect(Date.now() - started).toBeLessThan(500);
    await sandbox.control.notificationsSettled();
    const [record] = await sandbox.control.notificationLog(id);
    expect(record.state).toBe('acknowledged');
    expect(record.attempts.map((a) => a.httpStatus)).toEqual([null, 503, 200]);
  });

  it('drop mode sends nothing; duplicate sends copies; delay holds the first attempt', async () => {
    await sandbox.control.notifications('drop');
    const dropped = await create(postIpn);
    await sandbox.control.settle(dropped.id, 'completed', 'card');
    await sandbox.control.notificationsSettled();
    expect(forOrder(dropped.id)).toHaveLength(0);
    expect((await sandbox.control.notificationLog(dropped.id))[0].state).toBe('dropped');

    await sandbox.control.notifications('duplicate', { copies: 3 });
    const duplicated = await create(postIpn);
    await sandbox.control.settle(duplicated.id, 'completed', 'card');
    await sandbox.control.notificationsSettled();
    // Three copies, each delivered until acknowledged: a copy whose answer outlasted the 1 s
    // delivery timeout is sent again, so the receiver sees one request per attempt.
    const copies = await sandbox.control.notificationLog(duplicated.id);
    expect(copies.map((c) => [c.copy, c.state])).toEqual([
      [1, 'acknowledged'],
      [2, 'acknowledged'],
      [3, 'acknowledged'],
    ]);
    const attempts = copies.reduce((sum, c) => sum + c.attempts.length, 0);
    expect(forOrder(duplicated.id)).toHaveLength(attempts);
    expect(new Set(forOrder(duplicated.id).map((r) => r.body)).size).toBe(1);

    await sandbox.control.notifications('delay', { delayMs: 300 });
    const delayed = await create(postIpn);
    await sandbox.control.settle(delayed.id, 'completed', 'card');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(forOrder(delayed.id)).toHaveLength(0);
    await eventually(async () => (forOrder(delayed.id).length === 1 ? true : undefined));
  });

  it('a recurring charge sends RECURRING naming the account_number; its lookup adds subscription_transaction_info', async () => {
    const parent = await create(getIpn, {
      account_number: 'SUB-42',
      billing_address: { first_name: 'Amina', last_name: 'Otieno' },
    });
    await sandbox.control.settle(parent.id, 'completed', 'card');
    const charge = await sandbox.control.chargeSubscription(parent.id, '99.99');
    const recurring = await eventually(async () => {
      const hit = receiver.received.find(
        (r) => r.url.searchParams.get('OrderNotificationType') === 'RECURRING',
      );
      return hit;
    });
    expect(recurring.url.searchParams.get('OrderMerchantReference')).toBe('SUB-42');
    expect(recurring.url.searchParams.get('OrderTrackingId')).toBe(charge.order_tracking_id);
    const lookup = await gw.get(
      `/Transactions/GetTransactionStatus?orderTrackingId=${charge.order_tracking_id}`,
    );
    expect(lookup.json.status_code).toBe(1);
    expect(lookup.json.subscription_transaction_info).toEqual({
      account_reference: 'SUB-42',
      amount: 99.99,
      first_name: 'Amina',
      last_name: 'Otieno',
      correlation_id: expect.any(Number),
    });
  });
});
