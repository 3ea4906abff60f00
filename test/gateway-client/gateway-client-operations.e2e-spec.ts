import { ConfirmationCode, IpnId, MerchantReference, Money, OrderTrackingId } from '@app/domain';
import {
  GatewayAuthError,
  GatewayClient,
  GatewayMalformedResponseError,
  GatewayRejectedError,
  GatewayRequestInvalidError,
} from '@app/gateway-client';
import { RunningSandbox, startSandbox } from '../support/sandbox';
import { clientFor, orderFor } from './client-under-test';

describe('GatewayClient against the sandbox: operations', () => {
  let sandbox: RunningSandbox;
  let client: GatewayClient;
  let ipnId: IpnId;

  beforeAll(async () => {
    sandbox = await startSandbox();
    client = clientFor(sandbox);
    ipnId = (await client.registerIpn('https://shop.example/ipn/operations', 'POST')).ipnId;
  });
  afterAll(() => sandbox.close());

  it('registers an IPN URL idempotently and lists it', async () => {
    const first = await client.registerIpn('http://shop.example/ipn/get', 'GET');
    expect(first).toMatchObject({
      url: 'http://shop.example/ipn/get',
      method: 'GET',
      active: true,
    });
    expect(first.createdAt.getTime()).toBeGreaterThan(Date.now() - 60_000);
    const again = await client.registerIpn('http://shop.example/ipn/get', 'GET');
    expect(again.ipnId).toBe(first.ipnId);
    expect(again.createdAt.getTime()).toBe(first.createdAt.getTime());

    const list = await client.listIpns();
    const listed = list.find((entry) => entry.ipnId === first.ipnId);
    expect(listed?.url).toBe('http://shop.example/ipn/get');
    expect(listed?.createdAt.getTime()).toBe(first.createdAt.getTime());
    expect(list.map((entry) => entry.ipnId)).toContain(ipnId);
  });

  it('creates an order, returns the original one for a re-used id, and looks it up as pending', async () => {
    const order = orderFor(ipnId);
    const submitted = await client.submitOrder(order);
    expect(submitted.merchantReference).toBe(order.merchantReference);
    expect(submitted.redirectUrl).toMatch(/^http/);

    const resubmitted = await client.submitOrder({ ...order, amount: Money.of('9', 'KES') });
    expect(resubmitted.orderTrackingId).toBe(submitted.orderTrackingId);

    const lookup = await client.getTransactionStatus(submitted.orderTrackingId);
    expect(lookup.kind).toBe('pending');
    if (lookup.kind !== 'pending') return;
    expect(lookup.record).toMatchObject({
      outcome: 'pending',
      statusCode: 0,
      confirmationCode: null,
      currency: 'KES',
    });
    expect(lookup.record.amount.toDecimalString()).toBe('1500.50');
    expect(Math.abs(lookup.record.createdAt.getTime() - Date.now())).toBeLessThan(60_000);
  });

  it('reads a completed card payment through all three lookups, then refunds it once', async () => {
    const order = orderFor(ipnId, { amount: Money.of('2499.99', 'KES') });
    const { orderTrackingId } = await client.submitOrder(order);
    await sandbox.control.settle(orderTrackingId, 'completed', 'card');

    const byId = await client.getTransactionStatus(orderTrackingId);
    if (byId.kind !== 'found') throw new Error(`expected found, got ${byId.kind}`);
    expect(byId.record).toMatchObject({
      outcome: 'completed',
      statusCode: 1,
      merchantReference: order.merchantReference,
    });
    expect(byId.record.amount.equals(Money.of('2499.99', 'KES'))).toBe(true);
    const code = byId.record.confirmationCode;
    expect(typeof code).toBe('string');
    expect(Math.abs(byId.record.createdAt.getTime() - Date.now())).toBeLessThan(60_000);

    const byReference = await client.getTransactionByMerchantReference(order.merchantReference);
    expect(byReference.kind === 'found' && byReference.record.orderTrackingId).toBe(
      orderTrackingId,
    );
    const byCode = await client.queryStatusByConfirmationCode(code as ConfirmationCode);
    expect(byCode.kind === 'found' && byCode.record.orderTrackingId).toBe(orderTrackingId);

    const refund = {
      confirmationCode: code as ConfirmationCode,
      amount: Money.of('100.00', 'KES'),
      username: 'ops@shop',
      remarks: 'damaged',
    };
    expect(await client.requestRefund(refund)).toMatchObject({ accepted: true });
    expect(await client.requestRefund({ ...refund, amount: Money.of('1', 'KES') })).toMatchObject({
      accepted: false,
    });
  });

  it('reads a declined mobile money payment as failed with its reason', async () => {
    const { orderTrackingId } = await client.submitOrder(orderFor(ipnId));
    await sandbox.control.settle(orderTrackingId, 'failed', 'mobile_money', {
      paymentStatusCode: 'request_terminated_by_user',
    });
    const lookup = await client.getTransactionStatus(orderTrackingId);
    if (lookup.kind !== 'found') throw new Error(`expected found, got ${lookup.kind}`);
    expect(lookup.record).toMatchObject({
      outcome: 'failed',
      statusCode: 2,
      paymentStatusCode: 'request_terminated_by_user',
      description: null,
    });
  });

  it('tells an unknown order apart from an unpaid one', async () => {
    expect(
      await client.getTransactionStatus(OrderTrackingId('00000000-0000-4000-8000-000000000000')),
    ).toEqual({ kind: 'not_found' });
    expect(await client.getTransactionByMerchantReference(MerchantReference('never-sent'))).toEqual(
      { kind: 'not_found' },
    );
  });

  it('cancels a pending order once', async () => {
    const { orderTrackingId } = await client.submitOrder(orderFor(ipnId));
    expect(await client.cancelOrder(orderTrackingId)).toMatchObject({ accepted: true });
    expect(await client.cancelOrder(orderTrackingId)).toMatchObject({ accepted: false });
  });

  it('creates a recurring order with subscription dates the gateway accepts', async () => {
    const start = new Date(Date.now() + 3 * 86_400_000);
    const end = new Date(Date.now() + 300 * 86_400_000);
    const submitted = await client.submitOrder(
      orderFor(ipnId, {
        subscription: {
          accountNumber: 'SUB-42',
          startDate: start,
          endDate: end.toISOString(),
          frequency: 'monthly',
        },
      }),
    );
    expect(submitted.orderTrackingId).toBeTruthy();
  });

  it('pushes a mobile money prompt; the order resolves under the id we sent', async () => {
    const order = orderFor(ipnId);
    const pushed = await client.pushMobileMoney({
      ...order,
      msisdn: '254712345678',
      network: 'mpesa',
    });
    expect(pushed.pushMerchantReference).not.toBe(order.merchantReference);
    expect(pushed.businessNumber).not.toBe('');
    await sandbox.control.notificationsSettled();
    let lookup = await client.getTransactionStatus(pushed.orderTrackingId);
    for (let i = 0; i < 40 && lookup.kind === 'pending'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      lookup = await client.getTransactionStatus(pushed.orderTrackingId);
    }
    if (lookup.kind !== 'found') throw new Error(`expected found, got ${lookup.kind}`);
    expect(lookup.record).toMatchObject({
      outcome: 'completed',
      merchantReference: order.merchantReference,
      description: null,
    });
  });

  it('surfaces InvalidIpnId exactly', async () => {
    const failure = await client
      .submitOrder(orderFor(IpnId('00000000-0000-4000-8000-00000000dead')))
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(GatewayRejectedError);
    expect(failure).toMatchObject({
      code: 'InvalidIpnId',
      operation: 'submitOrder',
      httpStatus: 200,
    });
  });

  it('surfaces a push network the gateway refuses, and the model-state 400', async () => {
    const foreign = clientFor(sandbox, { mobileMoneyNetworks: ['MPESA', 'TIGOTZ'] });
    const refused = await foreign
      .pushMobileMoney({ ...orderFor(ipnId), msisdn: '255712345678', network: 'TIGOTZ' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(GatewayRejectedError);
    expect((refused as GatewayRejectedError).messages).toEqual(['Invalid Payment method provided']);

    // Our validation never lets a push without msisdn out; strip it on the wire to reach the 400.
    const stripping = clientFor(sandbox, {
      fetchImpl: (input, init) => {
        if (String(input).endsWith('/transactions/stk') && typeof init.body === 'string') {
          const { msisdn: _dropped, ...rest } = JSON.parse(init.body) as Record<string, unknown>;
          return fetch(input, { ...init, body: JSON.stringify(rest) });
        }
        return fetch(input, init);
      },
    });
    const modelState = await stripping
      .pushMobileMoney({ ...orderFor(ipnId), msisdn: '254712345678', network: 'MPESA' })
      .catch((e: unknown) => e);
    expect(modelState).toBeInstanceOf(GatewayRejectedError);
    expect(modelState).toMatchObject({ httpStatus: 400 });
    expect(Object.keys((modelState as GatewayRejectedError).fieldMessages).join()).toMatch(
      /msisdn/i,
    );
  });

  it('refuses invalid requests locally, before any call', async () => {
    const before = (await sandbox.control.requests()).counts.SubmitOrderRequest;
    await expect(
      client.submitOrder(orderFor(ipnId, { merchantReference: MerchantReference('x'.repeat(51)) })),
    ).rejects.toBeInstanceOf(GatewayRequestInvalidError);
    await expect(
      client.pushMobileMoney({ ...orderFor(ipnId), msisdn: '12', network: 'MPESA' }),
    ).rejects.toBeInstanceOf(GatewayRequestInvalidError);
    const production = clientFor(sandbox, { productionMode: true });
    await expect(production.registerIpn('http://shop.example/ipn', 'POST')).rejects.toBeInstanceOf(
      GatewayRequestInvalidError,
    );
    expect((await sandbox.control.requests()).counts.SubmitOrderRequest).toBe(before);
  });

  it('reports wrong credentials, a missing bearer (401, double-encoded) and unknown paths as typed errors', async () => {
    const wrong = clientFor(sandbox, { consumerSecret: 'not-the-secret' });
    const credentials = await wrong.listIpns().catch((e: unknown) => e);
    expect(credentials).toBeInstanceOf(GatewayAuthError);
    expect(credentials).toMatchObject({
      operation: 'requestToken',
      code: 'invalid_consumer_key_or_secret_provided',
      httpStatus: 200,
    });
    expect(String(credentials)).not.toContain('not-the-secret');

    const headerless = clientFor(sandbox, {
      fetchImpl: (input, init) => {
        const headers = { ...(init.headers as Record<string, string>) };
        delete headers.Authorization;
        return fetch(input, { ...init, headers });
      },
    });
    const missing = await headerless.listIpns().catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(GatewayAuthError);
    expect(missing).toMatchObject({
      httpStatus: 401,
      code: 'invalid_api_credentials_provided',
      errorType: 'authentication_error',
    });

    const lost = clientFor(sandbox, { baseUrl: `${sandbox.origin}/nowhere/api` });
    const notFound = await lost.listIpns().catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(GatewayMalformedResponseError);
    expect(notFound).toMatchObject({ httpStatus: 404 });
  });
});
