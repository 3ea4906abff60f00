import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { IpnId } from '@app/domain';
import { OrderEntity, UnmatchedPaymentEntity } from '@app/persistence';
import { inboxOf, notify } from '../ipn/ipn-support';
import { ownTestDatabase } from '../support/database';
import { RunningService, startService, waitFor } from '../support/service';
import { AdminFixtures } from './admin-fixtures';

const TOKEN = 'unmatched-payments-metrics-1';

interface PaymentItem {
  id: string;
  order_tracking_id: string;
  amount: string;
  currency: string;
  merchant_reference: string | null;
  payment_method: string | null;
  confirmation_code: string | null;
  status: string;
  order_reference: string | null;
}

/**
 * Payments without an order, end to end: money the sandbox gateway took for an order our
 * database never held (submitted straight to the gateway, as a payment made on its dashboard or
 * lost in a restore would be), found through its notification, listed, matched and refunded.
 */
describe('payments without an order (api + worker + sandbox, a database of its own)', () => {
  let service: RunningService;
  let database: Awaited<ReturnType<typeof ownTestDatabase>>;
  let dataSource: DataSource;
  let fixtures: AdminFixtures;
  let ipnId: IpnId;

  beforeAll(async () => {
    // Its own database: the list, the metric and the counts are this suite's alone.
    database = await ownTestDatabase('unmatched');
    dataSource = database.dataSource;
    service = await startService({
      worker: true,
      env: {
        QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}_unmatched`,
        POLL_SCHEDULE_SECONDS: '600',
        // An unknown tracking id is looked up on its second try, 200 ms after the first.
        IPN_UNMATCHED_RETRY_MS: '200',
        REFUND_APPROVAL_THRESHOLD: 'KES:50000',
        METRICS_TOKEN: TOKEN,
      },
    });
    fixtures = new AdminFixtures(service, dataSource);
    ipnId = (await fixtures.gateway.registerIpn(`${service.apiUrl}/v1/ipn/elsewhere`, 'POST'))
      .ipnId;
    // The gateway's own notifications go nowhere: each test sends the ones it needs.
    await service.sandbox.control.notifications('drop');
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await database?.drop();
    delete process.env.METRICS_TOKEN;
  });

  const admin = () => request(service.apiUrl);

  const paidAtGatewayOnly = (amount?: string) => fixtures.paidAtGatewayOnly(ipnId, amount);

  const keptFor = (trackingId: string) =>
    dataSource.getRepository(UnmatchedPaymentEntity).findBy({ orderTrackingId: trackingId });

  /** Notified once, then kept as a payment without an order. */
  async function kept(amount = '1500.00'): Promise<UnmatchedPaymentEntity> {
    const paid = await paidAtGatewayOnly(amount);
    expect((await notify(service, paid)).status).toBe(200);
    return waitFor('the payment kept', async () => (await keptFor(paid.trackingId))[0]);
  }

  async function audit(action: string, target: string): Promise<{ outcome: string }[]> {
    return (await dataSource.query(
      `SELECT actor_id, action, target, outcome FROM audit_events WHERE action = $1 AND target = $2`,
      [action, target],
    )) as { outcome: string }[];
  }

  it('keeps a notified payment no order of ours carries, once however often it is notified', async () => {
    const paid = await paidAtGatewayOnly('1500.00');
    const answers = await Promise.all(Array.from({ length: 5 }, () => notify(service, paid)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);

    // Every copy settles as applied (never failed, never waiting on), and one payment is kept.
    const inbox = await waitFor(
      'every copy applied',
      async () => {
        const rows = await inboxOf(dataSource, paid.trackingId);
        return rows.length === 5 && rows.every((row) => row.status === 'applied') ? rows : null;
      },
      20_000,
    );
    const rows = await keptFor(paid.trackingId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      gatewayAccount: 'default',
      amount: '1500.00',
      currency: 'KES',
      merchantReference: paid.reference,
      confirmationCode: paid.confirmationCode,
      status: 'open',
      orderId: null,
    });
    expect(rows[0].paymentMethod).toBeTruthy();
    expect(rows[0].paidAt).toBeInstanceOf(Date);
    expect(inbox.map((row) => row.id)).toContain(rows[0].notificationId);
    expect(inbox.every((row) => row.orderId === null)).toBe(true);

    const listed = await admin().get('/v1/admin/unmatched-payments').set(service.adminAuth);
    expect(listed.status).toBe(200);
    const item = (listed.body.items as PaymentItem[]).find((p) => p.id === rows[0].id);
    expect(item).toMatchObject({
      order_tracking_id: paid.trackingId,
      amount: '1500.00',
      currency: 'KES',
      merchant_reference: paid.reference,
      payment_method: rows[0].paymentMethod,
      confirmation_code: paid.confirmationCode,
      status: 'open',
      order_reference: null,
    });
    const one = await admin()
      .get(`/v1/admin/unmatched-payments/${rows[0].id}`)
      .set(service.adminAuth);
    expect(one.status).toBe(200);
    expect(one.body.unmatched_payment).toEqual(item);
  });

  it('keeps waiting while the gateway holds the payment as pending', async () => {
    const pending = await fixtures.gatewayOnlyOrder(ipnId, '900.00', 'Not paid yet');
    await notify(service, pending);
    const [row] = await waitFor('looked up and still waiting', async () => {
      const rows = await inboxOf(dataSource, pending.trackingId);
      return rows[0]?.attempts >= 3 ? rows : null;
    });
    expect(row.status).toBe('unmatched');
    expect(await keptFor(pending.trackingId)).toHaveLength(0);
  });

  it('lists them a cursor page at a time, by status, and refuses a cursor of other filters', async () => {
    await Promise.all([kept(), kept(), kept()]);
    const all = (await dataSource.query(
      `SELECT id FROM unmatched_payments ORDER BY created_at DESC, id DESC`,
    )) as { id: string }[];
    expect(all.length).toBeGreaterThanOrEqual(4);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await admin()
        .get('/v1/admin/unmatched-payments')
        .query({ limit: 2, ...(cursor ? { cursor } : {}) })
        .set(service.adminAuth);
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...(page.body.items as PaymentItem[]).map((p) => p.id));
      cursor = page.body.next_cursor as string | null;
    } while (cursor);
    expect(seen).toEqual(all.map((row) => row.id));

    const first = await admin()
      .get('/v1/admin/unmatched-payments')
      .query({ limit: 1, status: 'open' })
      .set(service.adminAuth);
    expect(first.status).toBe(200);
    expect((first.body.items as PaymentItem[]).every((p) => p.status === 'open')).toBe(true);
    const foreign = await admin()
      .get('/v1/admin/unmatched-payments')
      .query({ limit: 1, status: 'matched', cursor: first.body.next_cursor as string })
      .set(service.adminAuth);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.code).toBe('validation_failed');
    expect(JSON.stringify(foreign.body.error)).toContain('cursor');

    const badStatus = await admin()
      .get('/v1/admin/unmatched-payments')
      .query({ status: 'lost' })
      .set(service.adminAuth);
    expect(badStatus.status).toBe(400);
    expect(JSON.stringify(badStatus.body.error)).toContain('status');
  });

  it('matches one to an unpaid order of ours: the order completes with the payment, its timeline and order.completed', async () => {
    const payment = await kept('1500.00');
    const order = await fixtures.hostedOrder({}, '1500.00');
    await service.sandbox.control.resetRequests();

    const matched = await admin()
      .post(`/v1/admin/unmatched-payments/${payment.id}/match`)
      .set(service.adminAuth)
      .send({ reference: order.merchantReference });
    expect(matched.status).toBe(200);
    expect(matched.body).toMatchObject({
      unmatched_payment: {
        id: payment.id,
        status: 'matched',
        order_reference: order.merchantReference,
      },
      order: { reference: order.merchantReference, status: 'completed' },
    });

    const after = await dataSource.getRepository(OrderEntity).findOneByOrFail({ id: order.id });
    expect(after).toMatchObject({
      status: 'completed',
      confirmationCode: payment.confirmationCode,
      paymentMethod: payment.paymentMethod,
      paidAmount: '1500.00',
      paidCurrency: 'KES',
      // The payment is the order's attempt now: later lookups and refunds name it.
      orderTrackingId: payment.orderTrackingId,
      attemptNumber: 2,
    });
    const timeline = (await dataSource.query(
      `SELECT type, source, from_status, to_status FROM order_events WHERE order_id = $1 AND type = 'status_changed'`,
      [order.id],
    )) as { source: string; from_status: string; to_status: string }[];
    expect(timeline).toEqual([
      { type: 'status_changed', source: 'admin', from_status: 'pending', to_status: 'completed' },
    ]);
    const events = (await dataSource.query(`SELECT type FROM outbox_events WHERE order_id = $1`, [
      order.id,
    ])) as { type: string }[];
    expect(events.map((event) => event.type)).toEqual(['order.completed']);
    // The attempt it held cannot take a second payment.
    expect((await service.sandbox.control.order(order.orderTrackingId as string)).state).toBe(
      'cancelled',
    );
    expect(await audit('unmatched_payment.matched', `unmatched_payment:${payment.id}`)).toEqual([
      expect.objectContaining({ outcome: 'succeeded' }),
    ]);

    // Settled once: a second match is refused, and so is a refund of it.
    const again = await admin()
      .post(`/v1/admin/unmatched-payments/${payment.id}/match`)
      .set(service.adminAuth)
      .send({ reference: order.merchantReference });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('unmatched_payment_settled');
    const refund = await admin()
      .post(`/v1/admin/unmatched-payments/${payment.id}/refund`)
      .set(service.adminAuth)
      .send({ reason: 'customer asked' });
    expect(refund.status).toBe(409);
    expect(refund.body.error.code).toBe('unmatched_payment_settled');

    // An order already paid takes no other payment.
    const other = await kept('1500.00');
    const paid = await admin()
      .post(`/v1/admin/unmatched-payments/${other.id}/match`)
      .set(service.adminAuth)
      .send({ reference: order.merchantReference });
    expect(paid.status).toBe(409);
    expect(paid.body.error.code).toBe('order_paid');
  });

  it('settles a payment once when two operators match it at the same moment', async () => {
    const payment = await kept('1500.00');
    const [first, second] = await Promise.all([
      fixtures.hostedOrder({}, '1500.00'),
      fixtures.hostedOrder({}, '1500.00'),
    ]);
    const answers = await Promise.all(
      [first, second].map((order) =>
        admin()
          .post(`/v1/admin/unmatched-payments/${payment.id}/match`)
          .set(service.adminAuth)
          .send({ reference: order.merchantReference }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    expect(answers.find((answer) => answer.status === 409)?.body.error.code).toBe(
      'unmatched_payment_settled',
    );
    const statuses = await dataSource
      .getRepository(OrderEntity)
      .findBy([{ id: first.id }, { id: second.id }]);
    expect(statuses.map((order) => order.status).sort()).toEqual(['completed', 'pending']);
  });

  it('refuses a match it cannot make, saying why, and changes nothing', async () => {
    const payment = await kept('1500.00');
    const dearer = await fixtures.hostedOrder({}, '2000.00');
    const since = (await dataSource.query(`SELECT clock_timestamp() AS now`))[0].now as Date;
    const match = (id: string, body: object) =>
      admin().post(`/v1/admin/unmatched-payments/${id}/match`).set(service.adminAuth).send(body);

    const unknownPayment = await match('7b0f9a52-5d0e-4a9e-9d51-3c3f0c6a1e11', {
      reference: dearer.merchantReference,
    });
    expect(unknownPayment.status).toBe(404);
    expect(unknownPayment.body.error.code).toBe('unmatched_payment_not_found');
    expect((await match('not-an-id', { reference: dearer.merchantReference })).status).toBe(404);

    const unknownOrder = await match(payment.id, { reference: 'NOBODY-HAS-THIS' });
    expect(unknownOrder.status).toBe(404);
    expect(unknownOrder.body.error.code).toBe('order_not_found');

    const mismatch = await match(payment.id, { reference: dearer.merchantReference });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.error.code).toBe('unmatched_payment_mismatch');
    expect(mismatch.body.error.message).toContain('amount');

    const blank = await match(payment.id, {});
    expect(blank.status).toBe(400);
    expect(JSON.stringify(blank.body.error)).toContain('reference');

    expect(
      (await dataSource.getRepository(UnmatchedPaymentEntity).findOneByOrFail({ id: payment.id }))
        .status,
    ).toBe('open');
    expect(
      (await dataSource.getRepository(OrderEntity).findOneByOrFail({ id: dearer.id })).status,
    ).toBe('pending');
    // Refused acts are in the trail too, with the answer's status.
    const refused = await waitFor('the refusals in the trail', async () => {
      const rows = (await dataSource.query(
        `SELECT status FROM audit_events
          WHERE action = 'admin.request' AND outcome = 'refused' AND at >= $1
            AND target = 'POST /v1/admin/unmatched-payments/:id/match'`,
        [since],
      )) as { status: number }[];
      return rows.length >= 5 ? rows : null;
    });
    expect(refused.map((row) => Number(row.status)).sort()).toEqual([400, 404, 404, 404, 422]);
  });

  it('refuses to settle a payment made under a reference that names another order of ours, and refunds it without that reference', async () => {
    const payment = await kept('1500.00');
    expect(payment.merchantReference).toEqual(expect.any(String));
    // Another order of ours (of another account, say) is held at the gateway under that reference.
    const named = await fixtures.hostedOrder({}, '1500.00');
    await dataSource.query(`UPDATE orders SET gateway_reference = $1 WHERE id = $2`, [
      payment.merchantReference,
      named.id,
    ]);
    const unpaid = await fixtures.hostedOrder({}, '1500.00');

    const answer = await admin()
      .post(`/v1/admin/unmatched-payments/${payment.id}/match`)
      .set(service.adminAuth)
      .send({ reference: unpaid.merchantReference });
    expect(answer.status).toBe(409);
    expect(answer.body.error).toMatchObject({
      code: 'reference_in_use',
      order: { reference: named.merchantReference, account: named.gatewayAccount },
    });
    expect(answer.body.error.message).toContain(String(payment.merchantReference));
    const orders = dataSource.getRepository(OrderEntity);
    expect(await orders.findOneByOrFail({ id: unpaid.id })).toMatchObject({
      status: 'pending',
      gatewayReference: null,
      attemptNumber: unpaid.attemptNumber,
    });
    expect(
      (await dataSource.getRepository(UnmatchedPaymentEntity).findOneByOrFail({ id: payment.id }))
        .status,
    ).toBe('open');

    // Refunded instead: adopted as an order of its own, without the reference another holds.
    const refunded = await admin()
      .post(`/v1/admin/unmatched-payments/${payment.id}/refund`)
      .set(service.adminAuth)
      .send({ reason: 'made under another order of ours' });
    expect(refunded.status).toBe(201);
    expect(refunded.body.refund).toMatchObject({ status: 'accepted', amount: '1500.00' });
    expect(
      await orders.findOneByOrFail({ merchantReference: `UNMATCHED-${payment.orderTrackingId}` }),
    ).toMatchObject({ orderTrackingId: payment.orderTrackingId, gatewayReference: null });
    expect((await orders.findOneByOrFail({ id: named.id })).gatewayReference).toBe(
      payment.merchantReference,
    );
  });

  it('refunds one below the threshold at once: adopted as an order, one gateway refund', async () => {
    const payment = await kept('1500.00');
    await service.sandbox.control.resetRequests();

    const refunded = await admin()
      .post(`/v1/admin/unmatched-payments/${payment.id}/refund`)
      .set(service.adminAuth)
      .send({ reason: 'nobody ordered this' });
    expect(refunded.status).toBe(201);
    expect(refunded.body).toMatchObject({
      order: { reference: `UNMATCHED-${payment.orderTrackingId}` },
      refund: { status: 'accepted', amount: '1500.00', currency: 'KES' },
    });
    expect((await service.sandbox.control.requests()).counts.RefundRequest).toBe(1);
    const atGateway = await service.sandbox.control.order(payment.orderTrackingId);
    expect(atGateway.refund_requests).toBe(1);

    const adopted = await dataSource
      .getRepository(OrderEntity)
      .findOneByOrFail({ merchantReference: `UNMATCHED-${payment.orderTrackingId}` });
    expect(adopted).toMatchObject({
      status: 'completed',
      orderTrackingId: payment.orderTrackingId,
      confirmationCode: payment.confirmationCode,
      amount: '1500.00',
    });
    const settled = await dataSource
      .getRepository(UnmatchedPaymentEntity)
      .findOneByOrFail({ id: payment.id });
    expect(settled).toMatchObject({ status: 'refund_requested', orderId: adopted.id });
    expect(settled.settledBy).toBe('test-admin');
    expect(
      await audit('unmatched_payment.refund_requested', `unmatched_payment:${payment.id}`),
    ).toHaveLength(1);
    expect(
      await audit('order.refund_requested', `order:${adopted.merchantReference}`),
    ).toHaveLength(1);
    const events = (await dataSource.query(`SELECT type FROM outbox_events WHERE order_id = $1`, [
      adopted.id,
    ])) as { type: string }[];
    expect(events.map((event) => event.type)).toEqual(['refund.accepted']);

    // Asked again: the refund that exists is named, and the gateway is not asked twice.
    const again = await admin()
      .post(`/v1/admin/unmatched-payments/${payment.id}/refund`)
      .set(service.adminAuth)
      .send({ reason: 'nobody ordered this' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('refund_already_requested');
    expect((await service.sandbox.control.requests()).counts.RefundRequest).toBe(1);
  });

  it('refunds one above the threshold only after a second person approves it', async () => {
    const payment = await kept('60000.00');
    await service.sandbox.control.resetRequests();

    const asked = await admin()
      .post(`/v1/admin/unmatched-payments/${payment.id}/refund`)
      .set(service.adminAuth)
      .send({ reason: 'paid twice on the dashboard' });
    expect(asked.status).toBe(202);
    expect(asked.body.refund_approval).toMatchObject({
      status: 'pending',
      amount: '60000.00',
      currency: 'KES',
    });
    expect((await service.sandbox.control.requests()).counts.RefundRequest).toBe(0);
    const waiting = await admin()
      .get('/v1/admin/refund-approvals')
      .query({ status: 'pending' })
      .set(service.adminAuth);
    expect((waiting.body.items as { id: string }[]).map((a) => a.id)).toContain(
      asked.body.refund_approval.id,
    );
    // A key is nobody's second pair of eyes: the request still waits.
    const byKey = await admin()
      .post(`/v1/admin/refunds/${asked.body.refund_approval.id}/approve`)
      .set(service.adminAuth);
    expect(byKey.status).toBe(403);
    expect((await service.sandbox.control.requests()).counts.RefundRequest).toBe(0);
  });

  it('reconciliation reports the open ones: how many, and their money per currency', async () => {
    const expected = (await dataSource.query(
      `SELECT currency, count(*)::int AS count, sum(amount)::text AS amount
         FROM unmatched_payments WHERE status = 'open' GROUP BY currency ORDER BY currency`,
    )) as { currency: string; count: number; amount: string }[];
    expect(expected.length).toBeGreaterThan(0);
    const run = await admin()
      .post('/v1/admin/reconcile')
      .set(service.adminAuth)
      .send({ since_hours: 1 });
    expect(run.status).toBe(200);
    expect(run.body.unmatched_payments).toEqual({
      open: expected.reduce((total, row) => total + row.count, 0),
      by_currency: expected,
    });
  });

  it('counts the open ones in unmatched_payments_open on the worker', async () => {
    const [{ open }] = (await dataSource.query(
      `SELECT count(*)::int AS open FROM unmatched_payments WHERE status = 'open'`,
    )) as { open: number }[];
    expect(open).toBeGreaterThan(0);
    const address = service.workerApp!.getHttpServer().address() as { port: number };
    const scraped = await request(`http://127.0.0.1:${address.port}`)
      .get('/metrics')
      .set('Authorization', `Bearer ${TOKEN}`);
    expect(scraped.status).toBe(200);
    const families = parsePrometheusTextFormat(scraped.text) as {
      name: string;
      type: string;
      metrics: { value: string }[];
    }[];
    const family = families.find((f) => f.name === 'unmatched_payments_open');
    expect(family?.type).toBe('GAUGE');
    expect(Number(family?.metrics[0].value)).toBe(open);
  });
});
