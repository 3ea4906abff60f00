import request from 'supertest';
import { DataSource } from 'typeorm';
import {
  IpnNotificationEntity,
  SubscriptionChargeEntity,
  OutboxEventEntity,
} from '@app/persistence';
import { NO_ANSWER_PHONE } from '../checkout/support';
import { openTestDataSource } from '../support/database';
import { RunningService, startService, waitFor } from '../support/service';
import {
  hostedCheckout,
  inboxOf,
  ipnUrl,
  lookupsOf,
  notify,
  orderOf,
  reference,
  transitionsOf,
  waitForStatus,
} from './ipn-support';

describe('IPN receiver and verification (api + worker + sandbox over HTTP)', () => {
  let service: RunningService;
  let dataSource: DataSource;

  beforeAll(async () => {
    service = await startService({
      worker: true,
      env: {
        // A long poll step: every completion in this file must come from a notification.
        POLL_SCHEDULE_SECONDS: '600',
        // Longer than a burst of 1,000 takes to send on a loaded CI machine (3–4 s seen): the
        // bursts below must fall within one interval for their two-lookup promise to apply.
        ORDER_LOOKUP_INTERVAL_MS: '8000',
        IPN_UNMATCHED_RETRY_MS: '200',
      },
    });
    dataSource = await openTestDataSource();
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await dataSource?.destroy();
  });
  afterEach(() => service.sandbox.control.reset());

  it('applies a lookup answer holding what PostgreSQL cannot store, kept with U+FFFD in its place', async () => {
    const checkout = await hostedCheckout(service);
    // A declined mobile-money payment's record carries its processor's code as sent: here with
    // a lone surrogate and a NUL, escaped in the gateway's JSON, which no jsonb or text column
    // takes as they are.
    await service.sandbox.control.settle(checkout.orderTrackingId, 'failed', 'mobile_money', {
      paymentStatusCode: 'declined\uD800-\u0000',
    });
    const order = await waitForStatus(dataSource, checkout.reference, 'failed');
    expect(await transitionsOf(dataSource, order.id)).toEqual(['pending->failed']);
    const [event] = await dataSource.query<{ record: Record<string, unknown> }[]>(
      `SELECT gateway_record AS record FROM order_events
        WHERE order_id = $1 AND to_status = 'failed'`,
      [order.id],
    );
    expect(event.record.payment_status_code).toBe('declined\uFFFD-\uFFFD');
  });

  it('answers 404 for a wrong secret and stores nothing', async () => {
    const before = await dataSource.getRepository(IpnNotificationEntity).count();
    const answer = await request(ipnUrl(service, 'not-the-secret')).post('').send({
      OrderTrackingId: 'x',
      OrderMerchantReference: 'y',
      OrderNotificationType: 'IPNCHANGE',
    });
    expect(answer.status).toBe(404);
    expect(await dataSource.getRepository(IpnNotificationEntity).count()).toBe(before);
  });

  it('completes a hosted-page payment through the notification, acknowledged as the gateway expects', async () => {
    const checkout = await hostedCheckout(service);
    await service.sandbox.control.settle(checkout.orderTrackingId, 'completed', 'card');
    const order = await waitForStatus(dataSource, checkout.reference, 'completed');
    expect(order.confirmationCode).toMatch(/^\d{22}$/);
    expect(order.paidAmount).toBe('1500.00');
    expect(await transitionsOf(dataSource, order.id)).toEqual(['pending->completed']);
    const log = await service.sandbox.control.notificationLog(checkout.orderTrackingId);
    expect(log.map((record) => record.state)).toEqual(['acknowledged']);
    const rows = await waitFor('inbox row applied', async () => {
      const found = await inboxOf(dataSource, checkout.orderTrackingId);
      return found.every((row) => row.status === 'applied') && found.length > 0 ? found : null;
    });
    expect(rows[0]).toMatchObject({ orderId: order.id, notificationType: 'IPNCHANGE' });

    const ack = await notify(service, {
      trackingId: checkout.orderTrackingId,
      reference: checkout.reference,
    });
    expect(ack.status).toBe(200);
    expect(ack.body).toEqual({
      orderNotificationType: 'IPNCHANGE',
      orderTrackingId: checkout.orderTrackingId,
      orderMerchantReference: checkout.reference,
      status: 200,
    });
  });

  it('applies duplicated and reordered notifications as one transition', async () => {
    const checkout = await hostedCheckout(service);
    await service.sandbox.control.notifications('duplicate', { copies: 4 });
    await service.sandbox.control.settle(checkout.orderTrackingId, 'completed', 'card');
    // Late copies arrive after the outcome, in any order and method.
    await Promise.all(
      Array.from({ length: 10 }, () =>
        notify(service, { trackingId: checkout.orderTrackingId, reference: checkout.reference }),
      ),
    );
    const order = await waitForStatus(dataSource, checkout.reference, 'completed');
    await waitFor('every copy verified', async () =>
      (await inboxOf(dataSource, checkout.orderTrackingId)).every((r) => r.status === 'applied'),
    );
    expect(await inboxOf(dataSource, checkout.orderTrackingId)).toHaveLength(14);
    expect(await transitionsOf(dataSource, order.id)).toEqual(['pending->completed']);
    const outbox = await dataSource.getRepository(OutboxEventEntity).findBy({ orderId: order.id });
    expect(outbox.map((event) => event.type)).toEqual(['order.completed']);
  });

  /**
   * An order paid at the sandbox, whose own notification was dropped and whose next poll is an
   * hour away: only the notifications a test sends may cause lookups, counted from zero.
   */
  async function paidWithoutNotifying(): Promise<{ reference: string; orderTrackingId: string }> {
    const checkout = await hostedCheckout(service);
    await dataSource.query(
      `UPDATE orders SET next_poll_at = now() + interval '1 hour' WHERE merchant_reference = $1`,
      [checkout.reference],
    );
    await service.sandbox.control.notifications('drop');
    await service.sandbox.control.settle(checkout.orderTrackingId, 'completed', 'card');
    await service.sandbox.control.resetRequests();
    return checkout;
  }

  const allApplied = (trackingId: string, count: number, timeoutMs: number) =>
    waitFor(
      `all ${count} verified`,
      async () =>
        (await inboxOf(dataSource, trackingId)).filter((r) => r.status === 'applied').length ===
        count,
      timeoutMs,
    );

  /** `batches` rounds of 100 concurrent copies of one notification, every one acknowledged. */
  async function burst(
    fields: { trackingId: string; reference: string },
    batches: number,
    pauseMs = 0,
  ): Promise<void> {
    for (let batch = 0; batch < batches; batch += 1) {
      const answers = await Promise.all(Array.from({ length: 100 }, () => notify(service, fields)));
      expect(answers.every((answer) => answer.status === 200)).toBe(true);
      if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }

  it('costs at most two lookups for a burst of 1,000 notifications for one order', async () => {
    const checkout = await paidWithoutNotifying();
    const fields = { trackingId: checkout.orderTrackingId, reference: checkout.reference };
    await burst(fields, 10);
    await waitForStatus(dataSource, checkout.reference, 'completed');
    await allApplied(checkout.orderTrackingId, 1000, 20_000);
    expect(await lookupsOf(service, checkout.orderTrackingId)).toBeLessThanOrEqual(2);
    expect(await lookupsOf(service, checkout.orderTrackingId)).toBeGreaterThanOrEqual(1);
  });

  it('costs at most two lookups for a burst while every lookup is slow', async () => {
    const checkout = await paidWithoutNotifying();
    // Each lookup takes 4 s: a burst arriving while the first is in flight is answered by exactly
    // one more, however long the lookups and the waits between them last.
    await service.sandbox.control.fault('GetTransactionStatus', 'slow', { delayMs: 4000 });
    const fields = { trackingId: checkout.orderTrackingId, reference: checkout.reference };
    expect((await notify(service, fields)).status).toBe(200);
    await waitFor(
      'the first lookup',
      async () => (await lookupsOf(service, fields.trackingId)) >= 1,
    );
    const burstStarted = Date.now();
    // 300 copies in three rounds: on a loaded two-core machine 500 took longer than a lookup.
    await burst(fields, 3, 100);
    // The premise: the whole burst arrived before a second lookup could have started (the first
    // one ends 4 s after it began, which was before the burst).
    expect(Date.now() - burstStarted).toBeLessThan(4000);
    await allApplied(fields.trackingId, 301, 30_000);
    expect((await orderOf(dataSource, checkout.reference)).status).toBe('completed');
    expect(await lookupsOf(service, fields.trackingId)).toBe(2);
  }, 45_000);

  it('keeps the decline reason of a refused mobile money prompt', async () => {
    const ref = reference('PUSH');
    const created = await request(service.apiUrl)
      .post('/v1/checkouts/mobile-money')
      .set(service.shopAuth)
      .send({
        amount: '250.00',
        currency: 'KES',
        description: 'Coffee',
        reference: ref,
        customer: { email: 'amina@example.com', phone: NO_ANSWER_PHONE },
        // The sandbox leaves this phone's prompt to the test, which declines it.
        phone: NO_ANSWER_PHONE,
        network: 'MPESA',
      });
    expect(created.status).toBe(201);
    const trackingId = (created.body as { order_tracking_id: string }).order_tracking_id;
    await service.sandbox.control.settle(trackingId, 'failed', 'mobile_money', {
      paymentStatusCode: 'request_terminated_by_user',
    });
    const order = await waitForStatus(dataSource, ref, 'failed');
    expect(order.failureReason).toBe('request_terminated_by_user');
  });

  it('lets a failed order complete on a later notification', async () => {
    const checkout = await hostedCheckout(service);
    await service.sandbox.control.settle(checkout.orderTrackingId, 'failed', 'card');
    await waitForStatus(dataSource, checkout.reference, 'failed');
    await service.sandbox.control.settle(checkout.orderTrackingId, 'completed', 'card');
    const order = await waitForStatus(dataSource, checkout.reference, 'completed');
    expect(await transitionsOf(dataSource, order.id)).toEqual([
      'pending->failed',
      'failed->completed',
    ]);
  });

  it('records a recurring charge against the subscription without touching the first payment', async () => {
    const account = reference('SUB');
    const checkout = await hostedCheckout(service, {
      subscription: {
        account_number: account,
        start_date: '2031-01-01',
        end_date: '2031-12-31',
        frequency: 'MONTHLY',
      },
    });
    await service.sandbox.control.settle(checkout.orderTrackingId, 'completed', 'card');
    const first = await waitForStatus(dataSource, checkout.reference, 'completed');
    const charge = await service.sandbox.control.chargeSubscription(
      checkout.orderTrackingId,
      '1200.00',
    );
    const charges = await waitFor('subscription charge', async () => {
      const found = await dataSource
        .getRepository(SubscriptionChargeEntity)
        .findBy({ orderId: first.id });
      return found.length > 0 ? found : null;
    });
    expect(charges).toHaveLength(1);
    expect(charges[0]).toMatchObject({
      accountNumber: account,
      orderTrackingId: charge.order_tracking_id,
      confirmationCode: charge.confirmation_code,
      amount: '1200.00',
      currency: 'KES',
    });
    expect(charges[0].subscriptionInfo).toMatchObject({ account_reference: account });
    // A repeated notification records nothing twice.
    await notify(service, {
      trackingId: charge.order_tracking_id,
      reference: account,
      type: 'RECURRING',
    });
    await waitFor('repeat verified', async () =>
      (await inboxOf(dataSource, charge.order_tracking_id)).every((r) => r.status === 'applied'),
    );
    expect(
      await dataSource.getRepository(SubscriptionChargeEntity).countBy({ orderId: first.id }),
    ).toBe(1);
    const after = await orderOf(dataSource, checkout.reference);
    expect(after).toMatchObject({
      status: 'completed',
      confirmationCode: first.confirmationCode,
      paidAmount: '1500.00',
    });
    const outbox = await dataSource.getRepository(OutboxEventEntity).findBy({ orderId: first.id });
    expect(outbox.map((event) => event.type).sort()).toEqual([
      'order.completed',
      'subscription.charged',
    ]);
  });

  it('reads the fields from a query, a form body or JSON sent as text/plain', async () => {
    const checkout = await hostedCheckout(service);
    const query = `OrderTrackingId=${checkout.orderTrackingId}&OrderMerchantReference=${checkout.reference}&OrderNotificationType=IPNCHANGE`;
    const viaGet = await request(`${ipnUrl(service)}?${query}`).get('');
    const viaForm = await request(ipnUrl(service))
      .post('')
      .set('content-type', 'application/x-www-form-urlencoded')
      .send(query);
    const viaText = await request(ipnUrl(service))
      .post('')
      .set('content-type', 'text/plain')
      .send(
        JSON.stringify({
          OrderTrackingId: checkout.orderTrackingId,
          OrderMerchantReference: checkout.reference,
          OrderNotificationType: 'IPNCHANGE',
        }),
      );
    for (const answer of [viaGet, viaForm, viaText]) {
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ orderTrackingId: checkout.orderTrackingId, status: 200 });
    }
    const rows = await inboxOf(dataSource, checkout.orderTrackingId);
    expect(rows.map((row) => row.httpMethod).sort()).toEqual(['GET', 'POST', 'POST']);
    expect(rows.every((row) => row.merchantReference === checkout.reference)).toBe(true);
  });

  it('acknowledges junk (the gateway stops sending it) without effect and keeps it visible in the inbox', async () => {
    const marker = reference('JUNK');
    const missing = await request(ipnUrl(service)).post('').send({ OrderTrackingId: marker });
    expect(missing.status).toBe(200);
    expect(missing.body).toMatchObject({ orderTrackingId: marker, status: 200 });
    expect(missing.body.error.code).toBe('ipn_invalid');

    const callback = await request(ipnUrl(service))
      .post('')
      .send({
        OrderTrackingId: `${marker}-cb`,
        OrderMerchantReference: 'anything',
        OrderNotificationType: 'CALLBACKURL',
      });
    expect(callback.status).toBe(200);
    expect(callback.body).toMatchObject({ orderNotificationType: 'CALLBACKURL', status: 200 });

    const huge = await request(ipnUrl(service))
      .post(`?OrderTrackingId=${marker}-huge`)
      .set('content-type', 'application/json')
      .send(JSON.stringify({ padding: 'x'.repeat(100_000) }));
    expect(huge.status).toBe(200);
    expect(huge.body).toMatchObject({ status: 200, error: { code: 'ipn_body_too_large' } });

    for (const trackingId of [marker, `${marker}-cb`, `${marker}-huge`]) {
      const rows = await inboxOf(dataSource, trackingId);
      expect(rows).toHaveLength(1);
      expect(rows[0].status).toBe('ignored');
      expect(rows[0].lastError).toEqual(expect.any(String));
    }
  });

  it('keeps what no column takes as sent (NUL, lone surrogates, over-long values) as ignored, acknowledged', async () => {
    const marker = reference('ODD');
    const bodies = [
      {
        OrderTrackingId: `${marker}-nul`,
        OrderMerchantReference: 'a\u0000b',
        OrderNotificationType: 'IPNCHANGE\u0000',
      },
      {
        OrderTrackingId: `${marker}-type`,
        OrderMerchantReference: 'r',
        OrderNotificationType: 'T'.repeat(300),
      },
      {
        OrderTrackingId: `${marker}-long`,
        OrderMerchantReference: 'r'.repeat(400),
        OrderNotificationType: 'IPNCHANGE',
      },
    ];
    for (const body of bodies) {
      const answer = await request(ipnUrl(service)).post('').send(body);
      expect([answer.status, answer.body.status]).toEqual([200, 200]);
    }
    // A lone surrogate, escaped in the JSON text (as a sender's broken encoder writes it).
    const surrogate = await request(ipnUrl(service))
      .post('')
      .set('content-type', 'application/json')
      .send(
        `{"OrderTrackingId":"${marker}-sur","OrderMerchantReference":"\\ud800x","OrderNotificationType":"IPNCHANGE","\\udfff":"\\u0000"}`,
      );
    expect([surrogate.status, surrogate.body.status]).toEqual([200, 200]);
    for (const suffix of ['nul', 'type', 'long', 'sur']) {
      const rows = await inboxOf(dataSource, `${marker}-${suffix}`);
      expect([suffix, rows.length]).toEqual([suffix, 1]);
    }
    const [nul] = await inboxOf(dataSource, `${marker}-nul`);
    expect(nul.merchantReference).toBe('a\uFFFDb');
    const [sur] = await inboxOf(dataSource, `${marker}-sur`);
    expect(sur.merchantReference).toBe('\uFFFDx');
  });

  it('keeps a notification naming no order of ours, then adopts the order once a lookup shows it is ours', async () => {
    const stranger = await notify(service, {
      trackingId: '00000000-0000-4000-8000-000000000000',
      reference: reference('NOBODY'),
    });
    expect(stranger.status).toBe(200);
    const unknown = await waitFor('unmatched row', async () => {
      const [row] = await inboxOf(dataSource, '00000000-0000-4000-8000-000000000000');
      return row && row.status === 'unmatched' && row.attempts >= 2 ? row : null;
    });
    expect(unknown.lastError).toMatch(/no order of ours/);

    // An order whose creation answer never reached us: our row lacks the tracking id, and the
    // notification names a reference we do not recognise; the lookup names ours.
    const checkout = await hostedCheckout(service);
    const ours = await orderOf(dataSource, checkout.reference);
    await dataSource.query(
      `UPDATE orders SET order_tracking_id = NULL, submission_status = 'unknown' WHERE id = $1`,
      [ours.id],
    );
    await service.sandbox.control.notifications('drop');
    await service.sandbox.control.settle(checkout.orderTrackingId, 'completed', 'card');
    await notify(service, { trackingId: checkout.orderTrackingId, reference: 'not-ours' });
    const order = await waitForStatus(dataSource, checkout.reference, 'completed');
    expect(order.orderTrackingId).toBe(checkout.orderTrackingId);
    const [row] = await inboxOf(dataSource, checkout.orderTrackingId);
    expect(row).toMatchObject({ status: 'applied', orderId: ours.id });
  });
});
