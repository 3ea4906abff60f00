import request from 'supertest';
import { DataSource } from 'typeorm';
import { getOrder, hostedBody, NO_ANSWER_PHONE, postCheckout, pushBody } from '../checkout/support';
import {
  ATTEMPTS_PER_ORDER_LIMIT,
  REVIEW_REASON_MAX_LENGTH,
  TIMELINE_LIMIT,
} from '@app/checkout/orders/order-view';
import { openTestDataSource } from '../support/database';
import { RunningService, startService, waitFor } from '../support/service';

/**
 * A customer who declines, cancels or lets a prompt time out pays on the same order: each try
 * is a payment attempt, its own gateway order under its own id; every id finds the order, and a
 * late completion of an earlier attempt is never lost nor silently taken twice.
 */
const NO_ANSWER_LOCAL_PHONE = '0712 345 673';

describe('payment attempts: the customer tries again on the same order', () => {
  let service: RunningService;
  let dataSource: DataSource;

  beforeAll(async () => {
    // A short gateway timeout: the test of a creation call that times out waits for each try.
    service = await startService({ worker: true, env: { PESAPAL_TIMEOUT_MS: '1500' } });
    dataSource = await openTestDataSource(4);
  }, 60_000);

  afterAll(async () => {
    await service?.close();
    await dataSource?.destroy();
  });

  const tryAgain = (reference: string, body: object, key?: string) => {
    const call = request(service.apiUrl)
      .post(`/v1/orders/${encodeURIComponent(reference)}/attempts`)
      .set(service.shopAuth);
    return (key ? call.set('Idempotency-Key', key) : call).send(body);
  };

  const statusOf = async (reference: string) => (await getOrder(service, reference)).body.status;

  const waitForStatus = (reference: string, status: string) =>
    waitFor(
      `${reference} ${status}`,
      async () => (await statusOf(reference)) === status || null,
      15_000,
    );

  /** Merchant events of one type written for the order. */
  const eventsOfType = async (reference: string, type: string) => {
    const [row] = (await dataSource.query(
      `SELECT count(*)::int AS n FROM outbox_events e JOIN orders o ON o.id = e.order_id
        WHERE o.merchant_reference = $1 AND e.type = $2`,
      [reference, type],
    )) as { n: number }[];
    return row.n;
  };
  const completionEvents = (reference: string) => eventsOfType(reference, 'order.completed');

  async function failedCheckout(kind: 'hosted' | 'mobile_money') {
    const body = kind === 'hosted' ? hostedBody() : pushBody({ phone: NO_ANSWER_PHONE });
    const created = await postCheckout(
      service,
      body,
      kind === 'hosted' ? '/v1/checkouts' : '/v1/checkouts/mobile-money',
    );
    expect(created.status).toBe(201);
    const reference = String(body.reference);
    await service.sandbox.control.settle(
      created.body.order_tracking_id,
      'failed',
      kind === 'hosted' ? 'card' : 'mobile_money',
    );
    await waitForStatus(reference, 'failed');
    return { reference, firstTrackingId: created.body.order_tracking_id as string };
  }

  it('takes a declined push, a retry by push, then the payment: one completed order, two attempts', async () => {
    const { reference, firstTrackingId } = await failedCheckout('mobile_money');
    const retry = await tryAgain(reference, {
      method: 'mobile_money',
      phone: NO_ANSWER_LOCAL_PHONE,
      network: 'MPESA',
    });
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({ reference, attempt: 2, status: 'pending' });
    expect(retry.body.order_tracking_id).not.toBe(firstTrackingId);
    expect(retry.body.status_token).toMatch(/^pst_/);
    // The gateway got a new id for it: a re-used one would answer the first, failed order.
    const atGateway = await service.sandbox.control.order(retry.body.order_tracking_id);
    expect(atGateway.merchant_reference).not.toBe(reference);
    expect(atGateway.merchant_reference.length).toBeLessThanOrEqual(50);

    await service.sandbox.control.settle(retry.body.order_tracking_id, 'completed', 'mobile_money');
    await waitForStatus(reference, 'completed');
    const order = (await getOrder(service, reference)).body;
    expect(order).toMatchObject({ attempt: 2, order_tracking_id: retry.body.order_tracking_id });
    expect(
      order.attempts.map((a: { number: number; status: string; current: boolean }) => [
        a.number,
        a.status,
        a.current,
      ]),
    ).toEqual([
      [1, 'failed', false],
      [2, 'completed', true],
    ]);
    expect(await completionEvents(reference)).toBe(1);
    const announced = (await dataSource.query(
      `SELECT e.type, e.payload FROM outbox_events e JOIN orders o ON o.id = e.order_id
        WHERE o.merchant_reference = $1 ORDER BY e.created_at`,
      [reference],
    )) as { type: string; payload: { order: { attempt: number } } }[];
    expect(announced.map((e) => [e.type, e.payload.order.attempt])).toEqual([
      ['order.failed', 1],
      ['order.attempt_started', 2],
      ['order.completed', 2],
    ]);
    // Every attempt's id still finds the order.
    for (const name of [firstTrackingId, atGateway.merchant_reference]) {
      expect((await getOrder(service, name)).body.reference).toBe(reference);
    }
  });

  it('takes a failed hosted payment, then a hosted retry the customer pays', async () => {
    const { reference } = await failedCheckout('hosted');
    const retry = await tryAgain(reference, { method: 'hosted' });
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({ reference, attempt: 2, redirect_url: expect.any(String) });
    await service.sandbox.control.settle(retry.body.order_tracking_id, 'completed', 'card');
    await waitForStatus(reference, 'completed');
    expect(await completionEvents(reference)).toBe(1);
  });

  it('resends a pending prompt: the first is cancelled at the gateway before the second goes out', async () => {
    const body = pushBody({ phone: NO_ANSWER_PHONE });
    const created = await postCheckout(service, body, '/v1/checkouts/mobile-money');
    const reference = String(body.reference);
    const resend = await tryAgain(reference, {
      method: 'mobile_money',
      phone: NO_ANSWER_LOCAL_PHONE,
      network: 'MPESA',
    });
    expect(resend.status).toBe(201);
    expect(resend.body.attempt).toBe(2);
    expect((await service.sandbox.control.order(created.body.order_tracking_id)).state).toBe(
      'cancelled',
    );
    const order = (await getOrder(service, reference)).body;
    expect(order.status).toBe('pending');
    expect(order.attempts.map((a: { status: string }) => a.status)).toEqual([
      'cancelled',
      'pending',
    ]);
  });

  it('flags a late completion of an earlier attempt after the order was paid: a double payment, once', async () => {
    const { reference, firstTrackingId } = await failedCheckout('hosted');
    const retry = await tryAgain(reference, { method: 'hosted' });
    await service.sandbox.control.settle(retry.body.order_tracking_id, 'completed', 'card');
    await waitForStatus(reference, 'completed');

    // The first attempt's payment goes through late after all.
    await service.sandbox.control.settle(firstTrackingId, 'completed', 'card');
    await waitFor(
      'the double payment flagged',
      async () => (await getOrder(service, reference)).body.needs_review || null,
      15_000,
    );
    const order = (await getOrder(service, reference)).body;
    expect(order).toMatchObject({
      status: 'completed',
      attempt: 2,
      order_tracking_id: retry.body.order_tracking_id,
    });
    expect(order.review_reason).toMatch(/^double payment: attempt 1 /);
    expect(order.attempts[0]).toMatchObject({ number: 1, status: 'completed' });
    expect(order.attempts[0].confirmation_code).toEqual(expect.any(String));
    expect(order.attempts[0].confirmation_code).not.toBe(order.confirmation_code);
    expect(await completionEvents(reference)).toBe(1);
    expect(await eventsOfType(reference, 'order.review_required')).toBe(1);

    // An admin refunds the second payment in one action, once.
    const refundDouble = () =>
      request(service.apiUrl)
        .post(`/v1/admin/orders/${reference}/attempts/1/refund`)
        .set(service.adminAuth)
        .send({ reason: 'paid twice' });
    const refunded = await refundDouble();
    expect(refunded.status).toBe(201);
    expect(refunded.body.refund).toMatchObject({
      attempt: 1,
      status: 'accepted',
      amount: order.amount,
      confirmation_code: order.attempts[0].confirmation_code,
    });
    const atGateway = await service.sandbox.control.order(firstTrackingId);
    expect(atGateway.refund_requests).toBe(1);
    expect(atGateway.refund).not.toBeNull();
    const again = await refundDouble();
    expect([again.status, again.body.error.code]).toEqual([409, 'refund_already_requested']);
    expect((await service.sandbox.control.order(firstTrackingId)).refund_requests).toBe(1);
    // The payment the order kept is not a double payment: refunded as any payment, not here.
    const current = await request(service.apiUrl)
      .post(`/v1/admin/orders/${reference}/attempts/2/refund`)
      .set(service.adminAuth)
      .send({ reason: 'no' });
    expect([current.status, current.body.error.code]).toEqual([409, 'order_not_refundable']);
    const after = (await getOrder(service, reference)).body;
    expect(after).toMatchObject({ status: 'completed', needs_review: false });
    expect(after.attempts[0].refund_status).toBe('accepted');
    expect(await eventsOfType(reference, 'refund.accepted')).toBe(1);
  });

  it("lets an earlier attempt's late completion pay an unpaid order, and cancels the newer attempt", async () => {
    const { reference, firstTrackingId } = await failedCheckout('hosted');
    const retry = await tryAgain(reference, { method: 'hosted' });
    expect(retry.status).toBe(201);
    await service.sandbox.control.settle(firstTrackingId, 'completed', 'card');
    await waitForStatus(reference, 'completed');
    const order = (await getOrder(service, reference)).body;
    // The paying attempt is the order's attempt again: refunds and lookups use its ids.
    expect(order).toMatchObject({
      attempt: 1,
      order_tracking_id: firstTrackingId,
      needs_review: false,
    });
    await waitFor(
      'the newer attempt cancelled at the gateway',
      async () =>
        (await service.sandbox.control.order(retry.body.order_tracking_id)).state === 'cancelled' ||
        null,
    );
    expect(await completionEvents(reference)).toBe(1);
    // The paid attempt refunds as any payment does.
    const refund = await request(service.apiUrl)
      .post(`/v1/admin/orders/${reference}/refunds`)
      .set(service.adminAuth)
      .send({ amount: order.amount, reason: 'attempts e2e' });
    expect(refund.status).toBe(201);
  });

  it("reports in the reconciliation an earlier attempt's payment whose notification never came", async () => {
    const { reference, firstTrackingId } = await failedCheckout('hosted');
    const retry = await tryAgain(reference, { method: 'hosted' });
    await service.sandbox.control.settle(retry.body.order_tracking_id, 'completed', 'card');
    await waitForStatus(reference, 'completed');
    await service.sandbox.control.notifications('drop');
    try {
      await service.sandbox.control.settle(firstTrackingId, 'completed', 'card');
    } finally {
      await service.sandbox.control.notifications('deliver');
    }
    const report = await request(service.apiUrl)
      .post('/v1/admin/reconcile')
      .set(service.adminAuth)
      .send({ since_hours: 1 });
    expect(report.status).toBe(200);
    const ours = report.body.gateway_mismatches.filter(
      (m: { reference: string }) => m.reference === reference,
    );
    expect(ours).toEqual([
      expect.objectContaining({
        order_tracking_id: firstTrackingId,
        problem: 'attempt 1: status: ours failed, gateway completed',
        gateway: expect.objectContaining({ outcome: 'completed' }),
      }),
    ]);
  });

  it('refuses a new attempt on a paid, cancelled or still payable order, with a code, and bad input with the field', async () => {
    const paid = hostedBody();
    const paidOrder = await postCheckout(service, paid);
    await service.sandbox.control.settle(paidOrder.body.order_tracking_id, 'completed', 'card');
    await waitForStatus(String(paid.reference), 'completed');
    const onPaid = await tryAgain(String(paid.reference), { method: 'hosted' });
    expect([onPaid.status, onPaid.body.error.code]).toEqual([409, 'order_paid']);

    const open = hostedBody();
    await postCheckout(service, open);
    const onOpen = await tryAgain(String(open.reference), { method: 'hosted' });
    expect([onOpen.status, onOpen.body.error.code]).toEqual([409, 'attempt_still_payable']);

    await request(service.apiUrl)
      .post(`/v1/orders/${open.reference}/cancel`)
      .set(service.shopAuth)
      .expect(200);
    const onCancelled = await tryAgain(String(open.reference), { method: 'hosted' });
    expect([onCancelled.status, onCancelled.body.error.code]).toEqual([409, 'order_closed']);

    const { reference } = await failedCheckout('hosted');
    const noPhone = await tryAgain(reference, { method: 'mobile_money', network: 'MPESA' });
    expect(noPhone.status).toBe(400);
    expect(noPhone.body.error.errors.map((e: { field: string }) => e.field)).toContain('phone');
    const landline = await tryAgain(reference, {
      method: 'mobile_money',
      phone: '020 2345678',
      network: 'MPESA',
    });
    expect(landline.status).toBe(400);
    expect(landline.body.error.errors[0]).toMatchObject({ field: 'phone' });
    const badMethod = await tryAgain(reference, { method: 'cash' });
    expect(badMethod.status).toBe(400);
    // Nothing changed: still one failed attempt.
    const order = (await getOrder(service, reference)).body;
    expect([order.status, order.attempts.length]).toEqual(['failed', 1]);
    expect((await tryAgain('NO-SUCH-ORDER', { method: 'hosted' })).status).toBe(404);
  });

  it('refuses an attempt past the 20th with attempts_exhausted, and changes nothing', async () => {
    const { reference } = await failedCheckout('hosted');
    // Nineteen declined retries, in effect: the order's current attempt is its 20th.
    await dataSource.query(`UPDATE orders SET attempt_number = $2 WHERE merchant_reference = $1`, [
      reference,
      ATTEMPTS_PER_ORDER_LIMIT,
    ]);
    const refused = await tryAgain(reference, { method: 'hosted' });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'attempts_exhausted']);
    expect(refused.body.error.message).toMatch(/start a new order/);
    const order = (await getOrder(service, reference)).body;
    expect([order.status, order.attempt, order.attempts.length]).toEqual([
      'failed',
      ATTEMPTS_PER_ORDER_LIMIT,
      1,
    ]);
  });

  it('answers a review reason stored before its bound (an older release) cut to the bound it declares', async () => {
    const { reference } = await failedCheckout('hosted');
    await dataSource.query(
      `UPDATE orders SET needs_review = true, review_reason = repeat('x', 800)
        WHERE merchant_reference = $1`,
      [reference],
    );
    const order = (await getOrder(service, reference)).body;
    expect(order.review_reason).toBe('x'.repeat(REVIEW_REASON_MAX_LENGTH));
  });

  it("answers an order's latest 500 timeline entries, oldest of them first", async () => {
    const { reference } = await failedCheckout('hosted');
    const [{ id }] = (await dataSource.query(
      `SELECT id FROM orders WHERE merchant_reference = $1`,
      [reference],
    )) as { id: string }[];
    // 510 notes a minute apart after the order's own entries (created, submitted, failed).
    await dataSource.query(
      `INSERT INTO order_events (order_id, type, source, created_at)
       SELECT $1, 'note_' || n, 'admin', now() + n * interval '1 minute'
         FROM generate_series(1, 510) AS n`,
      [id],
    );
    const timeline = (await getOrder(service, reference)).body.timeline as { type: string }[];
    expect(timeline).toHaveLength(TIMELINE_LIMIT);
    expect(timeline[0].type).toBe('note_11');
    expect(timeline[TIMELINE_LIMIT - 1].type).toBe('note_510');
  });

  it('never re-sends the first checkout under its reference while a later attempt is unsettled', async () => {
    const body = hostedBody();
    const reference = String(body.reference);
    const created = await postCheckout(service, body);
    await service.sandbox.control.settle(created.body.order_tracking_id, 'failed', 'card');
    await waitForStatus(reference, 'failed');
    // The new attempt's creation call times out (its outcome at the gateway is unknown), and the
    // workers cannot repair it yet (lookups by reference fail).
    await service.sandbox.control.fault('SubmitOrderRequest', 'timeout', { delayMs: 2500 });
    await service.sandbox.control.fault('GetTransactionByMerchantReference', 'http500');
    try {
      const retry = await tryAgain(reference, { method: 'hosted' });
      expect([retry.status, retry.body.error?.code]).toEqual([504, 'gateway_timeout']);
      await service.sandbox.control.resetRequests();
      // The shop posts the first checkout again: its reference names the first attempt's order.
      const again = await postCheckout(service, body);
      expect([again.status, again.body.error.code]).toEqual([409, 'checkout_outcome_unknown']);
      expect((await service.sandbox.control.requests()).counts.SubmitOrderRequest ?? 0).toBe(0);
    } finally {
      await service.sandbox.control.reset();
    }
  }, 30_000);

  it('answers a repeated request with the same Idempotency-Key with the same attempt', async () => {
    const { reference } = await failedCheckout('hosted');
    const first = await tryAgain(reference, { method: 'hosted' }, `retry-${reference}`);
    const again = await tryAgain(reference, { method: 'hosted' }, `retry-${reference}`);
    expect(first.status).toBe(201);
    expect(again.body).toMatchObject({
      attempt: 2,
      order_tracking_id: first.body.order_tracking_id,
    });
    expect((await getOrder(service, reference)).body.attempts).toHaveLength(2);
  });
});
