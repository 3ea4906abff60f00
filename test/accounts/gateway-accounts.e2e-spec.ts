import { parse } from 'csv-parse/sync';
import request from 'supertest';
import { DataSource } from 'typeorm';
import {
  IpnNotificationEntity,
  IpnRegistrationEntity,
  OrderEntity,
  SubscriptionChargeEntity,
} from '@app/persistence';
import { hostedBody, pushBody, uniqueReference } from '../checkout/support';
import { uidOf } from '../../apps/sandbox/src/auth/token.service';
import { ownTestDatabase } from '../support/database';
import { RunningService, startService, waitFor } from '../support/service';

const KE = { consumerKey: 'ke-merchant-key', consumerSecret: 'ke-merchant-secret' };
const UG = { consumerKey: 'ug-merchant-key', consumerSecret: 'ug-merchant-secret' };

/**
 * One deployment, two Pesapal accounts (Kenya in KES, Uganda in UGX), each a merchant of its own
 * at the sandbox: there, a lookup, refund or cancel with the other merchant's token is answered
 * as for an unknown order, so every operation that succeeds below used the order's own account.
 */
describe('two gateway accounts (api + worker + sandbox merchants)', () => {
  let database: Awaited<ReturnType<typeof ownTestDatabase>>;
  let service: RunningService;
  let dataSource: DataSource;
  const workers: {
    listen(port: number, host: string): Promise<unknown>;
    close(): Promise<void>;
  }[] = [];

  beforeAll(async () => {
    // A database of its own: other files' orders are the account `default`, which this
    // deployment does not have, and the reconciliation reads every recent order.
    database = await ownTestDatabase('accounts');
    dataSource = database.dataSource;
    service = await startService({
      worker: true,
      sandbox: { merchants: [KE, UG] },
      env: {
        RUN_MIGRATIONS: 'true',
        PESAPAL_ACCOUNTS: 'ke:KES,ug:UGX',
        PESAPAL_ACCOUNT_KE_CONSUMER_KEY: KE.consumerKey,
        PESAPAL_ACCOUNT_KE_CONSUMER_SECRET: KE.consumerSecret,
        PESAPAL_ACCOUNT_UG_CONSUMER_KEY: UG.consumerKey,
        PESAPAL_ACCOUNT_UG_CONSUMER_SECRET: UG.consumerSecret,
      },
    });
    // Two more workers, starting as replicas do: each account is still registered once.
    const { createFastifyApp } = await import('@app/common');
    const { WorkerModule } = await import('../../apps/worker/src/worker.module');
    for (let i = 0; i < 2; i += 1) {
      const worker = await createFastifyApp(WorkerModule);
      await worker.listen(0, '127.0.0.1');
      workers.push(worker);
    }
  }, 60_000);
  afterAll(async () => {
    for (const worker of workers) await worker.close();
    await service?.close();
    await database?.drop();
  });

  const checkout = (body: Record<string, unknown>) =>
    request(service.apiUrl).post('/v1/checkouts').set(service.shopAuth).send(body);
  const orderOf = (reference: string) =>
    dataSource.getRepository(OrderEntity).findOneByOrFail({ merchantReference: reference });

  it('routes a checkout by its currency, stores its account, and pays it through that account end to end', async () => {
    for (const [currency, account, amount] of [
      ['KES', 'ke', '1500.00'],
      ['UGX', 'ug', '50000.00'],
    ] as const) {
      const body = hostedBody({ currency, amount });
      const created = await checkout(body);
      expect(created.status).toBe(201);
      const order = await orderOf(body.reference as string);
      expect(order.gatewayAccount).toBe(account);
      // Made at the gateway by the account's merchant, with its token.
      const atGateway = await service.sandbox.control.order(order.orderTrackingId as string);
      expect(atGateway.merchant).toBe(uidOf(account === 'ke' ? KE.consumerKey : UG.consumerKey));

      // The sandbox notifies the account's own URL; the worker verifies with the account's token.
      await service.sandbox.control.settle(order.orderTrackingId as string, 'completed', 'card');
      const paid = await waitFor(`the ${currency} order paid`, async () => {
        const fresh = await orderOf(order.merchantReference);
        return fresh.status === 'completed' ? fresh : null;
      });
      expect(paid.confirmationCode).toBeTruthy();
      const notification = await dataSource
        .getRepository(IpnNotificationEntity)
        .findOneByOrFail({ orderTrackingId: order.orderTrackingId as string });
      expect(notification.gatewayAccount).toBe(account);

      const shown = await request(service.apiUrl)
        .get(`/v1/orders/${order.merchantReference}`)
        .set(service.shopAuth);
      expect(shown.body).toMatchObject({ account, status: 'completed' });

      // A refund goes to the account that took the payment (the other would not know it).
      const refunded = await request(service.apiUrl)
        .post(`/v1/admin/orders/${order.merchantReference}/refunds`)
        .set(service.adminAuth)
        .send({ amount, reason: 'returned' });
      expect(refunded.status).toBe(201);
      expect(refunded.body.refund.status).toBe('accepted');
    }
  });

  it('cancels an unpaid order and syncs one through its own account', async () => {
    const body = hostedBody({ currency: 'UGX', amount: '20000.00' });
    expect((await checkout(body)).status).toBe(201);
    const synced = await request(service.apiUrl)
      .post(`/v1/admin/orders/${body.reference as string}/sync`)
      .set(service.adminAuth);
    expect(synced.status).toBe(200);
    const cancelled = await request(service.apiUrl)
      .post(`/v1/orders/${body.reference as string}/cancel`)
      .set(service.shopAuth)
      .send({});
    expect(cancelled.status).toBe(200);
    expect((await orderOf(body.reference as string)).status).toBe('cancelled');
  });

  it('registers one IPN URL per account, each with its own id', async () => {
    const rows = await waitFor('both registrations', async () => {
      const found = await dataSource.getRepository(IpnRegistrationEntity).find();
      const accounts = new Set(found.map((row) => row.gatewayAccount));
      return accounts.has('ke') && accounts.has('ug') ? found : null;
    });
    const ke = rows.find((row) => row.gatewayAccount === 'ke');
    const ug = rows.find((row) => row.gatewayAccount === 'ug');
    expect(ke?.url).toMatch(/\/v1\/ipn\/[^/]+\/ke$/);
    expect(ug?.url).toMatch(/\/v1\/ipn\/[^/]+\/ug$/);
    expect(ke?.ipnId).not.toBe(ug?.ipnId);
    // Three workers and the api, two accounts: two registrations at the gateway, no more.
    expect((await service.sandbox.control.requests()).counts.RegisterIPN).toBe(2);
  });

  it('refuses an account that does not exist, one that does not take the currency, and a currency no account takes, naming the field', async () => {
    const unknown = await checkout(hostedBody({ account: 'tz' }));
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.errors).toEqual([
      expect.objectContaining({
        field: 'account',
        reason: expect.stringContaining('no account tz'),
      }),
    ]);
    const mismatch = await checkout(hostedBody({ account: 'ug', currency: 'KES' }));
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.errors[0]).toMatchObject({ field: 'account' });
    const untaken = await checkout(hostedBody({ currency: 'USD', reference: uniqueReference() }));
    expect(untaken.status).toBe(400);
    expect(untaken.body.error.errors[0]).toMatchObject({ field: 'currency' });
    const named = await checkout(hostedBody({ account: 'ke' }));
    expect(named.status).toBe(201);
  });

  const paidThrough = (reference: string) =>
    waitFor(`order ${reference} paid`, async () => {
      const fresh = await orderOf(reference);
      return fresh.status === 'completed' ? fresh : null;
    });

  it('pushes a PIN prompt through each account, and polls an order whose notification never comes', async () => {
    // Phones ending in 3: the sandbox leaves the prompt to the test (see NO_ANSWER_PHONE).
    for (const [currency, account, phone] of [
      ['KES', 'ke', '+254712345673'],
      ['UGX', 'ug', '+256712345673'],
    ] as const) {
      const body = pushBody({ currency, amount: '700.00', phone });
      const pushed = await request(service.apiUrl)
        .post('/v1/checkouts/mobile-money')
        .set(service.shopAuth)
        .send(body);
      expect(pushed.body).toMatchObject({ reference: body.reference });
      const order = await orderOf(body.reference as string);
      expect(order.gatewayAccount).toBe(account);
      const atGateway = await service.sandbox.control.order(order.orderTrackingId as string);
      expect(atGateway.merchant).toBe(uidOf(account === 'ke' ? KE.consumerKey : UG.consumerKey));
      // The customer enters the PIN: notified to the account's URL, verified on its account.
      await service.sandbox.control.settle(
        order.orderTrackingId as string,
        'completed',
        'mobile_money',
      );
      await paidThrough(order.merchantReference);
    }
    // No notification: the worker's polling looks the order up on its account.
    await service.sandbox.control.notifications('drop');
    try {
      const body = hostedBody({ currency: 'UGX', amount: '3000.00' });
      expect((await checkout(body)).status).toBe(201);
      const order = await orderOf(body.reference as string);
      await service.sandbox.control.settle(order.orderTrackingId as string, 'completed', 'card');
      await paidThrough(order.merchantReference);
    } finally {
      await service.sandbox.control.notifications('deliver');
    }
  });

  it('takes a second attempt of a failed order on the same account', async () => {
    const body = hostedBody({ currency: 'UGX', amount: '4000.00' });
    expect((await checkout(body)).status).toBe(201);
    const first = await orderOf(body.reference as string);
    await service.sandbox.control.settle(first.orderTrackingId as string, 'failed', 'card');
    await waitFor('the first attempt failed', async () =>
      (await orderOf(first.merchantReference)).status === 'failed' ? true : null,
    );
    const again = await request(service.apiUrl)
      .post(`/v1/orders/${first.merchantReference}/attempts`)
      .set(service.shopAuth)
      .send({ method: 'hosted' });
    expect(again.body).toMatchObject({ attempt: 2 });
    const second = await orderOf(first.merchantReference);
    expect(second.orderTrackingId).not.toBe(first.orderTrackingId);
    const atGateway = await service.sandbox.control.order(second.orderTrackingId as string);
    expect(atGateway.merchant).toBe(uidOf(UG.consumerKey));
    await service.sandbox.control.settle(second.orderTrackingId as string, 'completed', 'card');
    await paidThrough(first.merchantReference);
  });

  it("records a subscription's recurring charge through its account", async () => {
    const accountNumber = `SUB-${uniqueReference()}`.slice(0, 40);
    const body = hostedBody({
      currency: 'UGX',
      amount: '9000.00',
      subscription: {
        account_number: accountNumber,
        start_date: '2031-01-01',
        end_date: '2031-12-31',
        frequency: 'MONTHLY',
      },
    });
    expect((await checkout(body)).status).toBe(201);
    const order = await orderOf(body.reference as string);
    await service.sandbox.control.settle(order.orderTrackingId as string, 'completed', 'card');
    const first = await paidThrough(order.merchantReference);
    const charge = await service.sandbox.control.chargeSubscription(
      order.orderTrackingId as string,
      '9000.00',
    );
    const recorded = await waitFor('the recurring charge', async () => {
      const rows = await dataSource
        .getRepository(SubscriptionChargeEntity)
        .findBy({ orderId: first.id });
      return rows.length > 0 ? rows : null;
    });
    expect(recorded[0]).toMatchObject({
      orderTrackingId: charge.order_tracking_id,
      currency: 'UGX',
    });
  });

  it("reconciles both accounts' orders against their own merchant, finding nothing amiss", async () => {
    const report = await request(service.apiUrl)
      .post('/v1/admin/reconcile')
      .set(service.adminAuth)
      .send({});
    expect(report.body).toMatchObject({ mismatch_count: 0 });
    expect(report.body.failures ?? []).toEqual([]);
    expect(report.body.mismatch_count).toBe(0);
  });

  it("lists an account's orders for the admin, and no other's", async () => {
    const listed = await request(service.apiUrl)
      .get('/v1/admin/orders?account=ug&limit=200')
      .set(service.adminAuth);
    expect(listed.status).toBe(200);
    expect(listed.body.items.length).toBeGreaterThan(3);
    expect(new Set(listed.body.items.map((o: { account: string }) => o.account))).toEqual(
      new Set(['ug']),
    );
    const bad = await request(service.apiUrl)
      .get('/v1/admin/orders?account=Not-An-Id')
      .set(service.adminAuth);
    expect(bad.status).toBe(400);
    expect(bad.body.error.errors[0].field).toBe('account');
  });

  it("exports and sums each account's money apart for finance", async () => {
    const day = (offset: number) =>
      new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const range = `from=${day(-1)}&to=${day(1)}&tz=UTC`;
    const rowsOf = async (extra: string) => {
      const response = await request(service.apiUrl)
        .get(
          `/v1/admin/exports/payments.csv?${range}&columns=account,merchant_reference,type,amount${extra}`,
        )
        .set(service.adminAuth)
        .buffer(true);
      expect(response.status).toBe(200);
      return parse(response.text, { columns: true }) as Record<string, string>[];
    };
    const every = await rowsOf('');
    const ke = await rowsOf('&account=ke');
    const ug = await rowsOf('&account=ug');
    // The earlier tests paid and refunded on both accounts.
    for (const [rows, account] of [
      [ke, 'ke'],
      [ug, 'ug'],
    ] as const) {
      expect(rows.map((row) => row.type)).toEqual(expect.arrayContaining(['payment', 'refund']));
      expect(new Set(rows.map((row) => row.account))).toEqual(new Set([account]));
      for (const row of rows) {
        expect((await orderOf(row.merchant_reference)).gatewayAccount).toBe(account);
      }
    }
    const key = (row: Record<string, string>) => JSON.stringify(row);
    expect([...ke, ...ug].map(key).sort()).toEqual(every.map(key).sort());

    const daily = async (extra: string) => {
      const response = await request(service.apiUrl)
        .get(`/v1/admin/reports/daily?${range}${extra}`)
        .set(service.adminAuth);
      expect(response.status).toBe(200);
      return response.body as {
        account: string | null;
        rows: { currency: string; payments: number }[];
      };
    };
    const keReport = await daily('&account=ke');
    expect(keReport.account).toBe('ke');
    expect(new Set(keReport.rows.map((row) => row.currency))).toEqual(new Set(['KES']));
    const payments = (report: { rows: { payments: number }[] }) =>
      report.rows.reduce((sum, row) => sum + row.payments, 0);
    expect(payments(keReport)).toBe(ke.filter((row) => row.type === 'payment').length);
    expect(payments(await daily('&account=ug'))).toBe(
      ug.filter((row) => row.type === 'payment').length,
    );

    for (const path of ['/v1/admin/exports/payments.csv', '/v1/admin/reports/daily']) {
      const refused = await request(service.apiUrl)
        .get(`${path}?${range}&account=default`)
        .set(service.adminAuth);
      expect(refused.status).toBe(400);
      expect(refused.body.error.errors).toEqual([
        { field: 'account', reason: 'must be one of the merchant accounts (ke, ug)' },
      ]);
    }
  });

  it("keeps each merchant's orders apart at the sandbox", async () => {
    const ug = await service.sandbox.control.ordersOf(UG.consumerKey);
    const ke = await service.sandbox.control.ordersOf(KE.consumerKey);
    expect(ug.length).toBeGreaterThan(3);
    expect(ke.length).toBeGreaterThan(1);
    expect(ug.every((order) => order.merchant === uidOf(UG.consumerKey))).toBe(true);
    expect(ug.map((order) => order.currency)).not.toContain('KES');
    expect(ke.map((order) => order.currency)).not.toContain('UGX');
  });

  it('logged in once per account, across the api and the worker', async () => {
    const counts = (await service.sandbox.control.requests()).counts;
    expect(counts.RequestToken).toBe(2);
  });
});
