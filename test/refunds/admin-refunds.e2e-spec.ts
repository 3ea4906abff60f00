import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { OrderEntity, OrderEventEntity, OutboxEventEntity, RefundEntity } from '@app/persistence';
import { adminSuiteForTests } from '../admin/admin-fixtures';

describe('admin refunds (api + Postgres + sandbox gateway)', () => {
  const the = adminSuiteForTests();

  const refund = (reference: string, body: Record<string, unknown>) =>
    request(the.service.apiUrl)
      .post(`/v1/admin/orders/${reference}/refunds`)
      .set(the.service.adminAuth)
      .send({ reason: 'customer returned the tickets', ...body });
  const eventsOf = (orderId: string) =>
    the.dataSource
      .getRepository(OrderEventEntity)
      .find({ where: { orderId }, order: { createdAt: 'ASC' } });
  const outboxTypes = async (orderId: string) =>
    (await the.dataSource.getRepository(OutboxEventEntity).find({ where: { orderId } }))
      .map((e) => e.type)
      .sort();

  it('refuses shop keys (403) and missing keys (401) on admin routes', async () => {
    const paid = await the.fixtures.paidOrder();
    const shop = await request(the.service.apiUrl)
      .post(`/v1/admin/orders/${paid.merchantReference}/refunds`)
      .set(the.service.shopAuth)
      .send({ amount: '1500.00', reason: 'x' });
    expect(shop.status).toBe(403);
    expect(shop.body.error.code).toBe('forbidden');
    for (const path of ['/v1/admin/orders', '/v1/admin/refunds', '/v1/admin/orders/stuck']) {
      expect((await request(the.service.apiUrl).get(path).set(the.service.shopAuth)).status).toBe(
        403,
      );
      expect((await request(the.service.apiUrl).get(path)).status).toBe(401);
    }
    expect(await the.fixtures.refundRequests()).toBe(0);
  });

  it('refunds a card payment in full: one gateway request, audit trail, merchant event', async () => {
    const paid = await the.fixtures.paidOrder('card');
    const before = await the.fixtures.refundRequests();
    const response = await refund(paid.merchantReference, { amount: '1500.00' });
    expect(response.status).toBe(201);
    expect(response.body.refund).toMatchObject({
      status: 'accepted',
      amount: '1500.00',
      currency: 'KES',
      partial: false,
      reason: 'customer returned the tickets',
      admin_key_name: 'test-admin',
      gateway_status: '200',
      order_reference: paid.merchantReference,
      confirmation_code: paid.confirmationCode,
    });
    expect(await the.fixtures.refundRequests()).toBe(before + 1);
    const sent = (await the.service.sandbox.control.requests()).recent.filter(
      (r) => r.operation === 'RefundRequest',
    );
    expect(JSON.parse(sent[sent.length - 1].body as string)).toEqual({
      confirmation_code: paid.confirmationCode,
      amount: '1500.00',
      username: 'test-admin',
      remarks: 'customer returned the tickets',
    });
    const events = (await eventsOf(paid.id)).filter((e) => e.type.startsWith('refund'));
    expect(events.map((e) => [e.type, e.actor, e.source])).toEqual([
      ['refund_requested', 'test-admin', 'admin'],
      ['refund_accepted', 'test-admin', 'admin'],
    ]);
    expect(await outboxTypes(paid.id)).toEqual(['order.completed', 'refund.accepted']);

    // Money moved only when the lookup reports the reversal: the sync marks the refund reversed.
    await the.fixtures.settle(paid, 'reversed');
    const reversed = await the.dataSource
      .getRepository(RefundEntity)
      .findOneByOrFail({ orderId: paid.id });
    expect(reversed.status).toBe('reversed');
  });

  it('refunds a payment whose confirmation code is longer than 100 characters, sending it back exactly', async () => {
    // The gateway gives confirmation codes no fixed length; a refund must quote the code whole.
    const code = `RCPT${randomBytes(150).toString('hex')}`;
    const paid = await the.fixtures.settle(await the.fixtures.hostedOrder(), 'completed', 'card', {
      confirmationCode: code,
      paymentAccount: `4761${'*'.repeat(90)}0010`,
    });
    expect(paid.status).toBe('completed');
    expect(paid.confirmationCode).toBe(code);
    // Shown only, never sent back: kept cut to its column.
    expect(paid.paymentAccount).toBe(`4761${'*'.repeat(60)}`);

    const response = await refund(paid.merchantReference, { amount: '1500.00' });
    expect(response.status).toBe(201);
    expect(response.body.refund).toMatchObject({ status: 'accepted', confirmation_code: code });
    const sent = (await the.service.sandbox.control.requests()).recent.filter(
      (r) => r.operation === 'RefundRequest',
    );
    expect(JSON.parse(sent[sent.length - 1].body as string)).toMatchObject({
      confirmation_code: code,
    });
  });

  it('asks for confirm_partial before a partial refund, then sends exactly that amount', async () => {
    const paid = await the.fixtures.paidOrder('card');
    const before = await the.fixtures.refundRequests();
    const unconfirmed = await refund(paid.merchantReference, { amount: '500.00' });
    expect(unconfirmed.status).toBe(422);
    expect(unconfirmed.body.error).toMatchObject({
      code: 'partial_refund_not_confirmed',
      errors: [{ field: 'confirm_partial', reason: 'must be true for a partial refund' }],
    });
    expect(await the.fixtures.refundRequests()).toBe(before);
    expect(await the.dataSource.getRepository(RefundEntity).countBy({ orderId: paid.id })).toBe(0);

    const confirmed = await refund(paid.merchantReference, {
      amount: '500.5',
      confirm_partial: true,
    });
    expect(confirmed.status).toBe(201);
    expect(confirmed.body.refund).toMatchObject({
      status: 'accepted',
      amount: '500.50',
      partial: true,
    });
    expect(await the.fixtures.refundRequests()).toBe(before + 1);
  });

  it('refuses a second refund locally, without a second gateway request', async () => {
    const paid = await the.fixtures.paidOrder('card');
    expect((await refund(paid.merchantReference, { amount: '1500.00' })).status).toBe(201);
    const before = await the.fixtures.refundRequests();
    const second = await refund(paid.merchantReference, {
      amount: '100.00',
      confirm_partial: true,
    });
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('refund_already_requested');
    expect(second.body.error.refund).toMatchObject({ status: 'accepted', amount: '1500.00' });
    expect(await the.fixtures.refundRequests()).toBe(before);
  });

  it('lets a new attempt follow a refund the gateway rejected, with exactly one more gateway call', async () => {
    // Paid with mobile money at the gateway, while our row names a card: the partial refund our
    // policy allows is one the gateway refuses ("500"), and no refund exists there afterwards.
    const paid = await the.fixtures.paidOrder('mobile_money');
    await the.dataSource
      .getRepository(OrderEntity)
      .update({ id: paid.id }, { paymentMethod: 'Visa' });
    const before = await the.fixtures.refundRequests();
    const rejected = await refund(paid.merchantReference, {
      amount: '100.00',
      confirm_partial: true,
    });
    expect(rejected.status).toBe(201);
    expect(rejected.body.refund).toMatchObject({ status: 'rejected', gateway_status: '500' });
    expect(await the.fixtures.refundRequests()).toBe(before + 1);

    const retry = await refund(paid.merchantReference, { amount: '1500.00' });
    expect(retry.status).toBe(201);
    expect(retry.body.refund).toMatchObject({ status: 'accepted', amount: '1500.00' });
    expect(await the.fixtures.refundRequests()).toBe(before + 2);

    // An accepted refund blocks again, locally.
    const third = await refund(paid.merchantReference, { amount: '1500.00' });
    expect([third.status, third.body.error.code]).toEqual([409, 'refund_already_requested']);
    expect(third.body.error.refund).toMatchObject({ id: retry.body.refund.id });
    expect(await the.fixtures.refundRequests()).toBe(before + 2);
    expect(await the.dataSource.getRepository(RefundEntity).countBy({ orderId: paid.id })).toBe(2);

    // Shop view and admin detail both show the latest attempt.
    const shopView = await request(the.service.apiUrl)
      .get(`/v1/orders/${paid.merchantReference}`)
      .set(the.service.shopAuth);
    expect(shopView.body.refund).toMatchObject({ id: retry.body.refund.id, status: 'accepted' });
    const detail = await request(the.service.apiUrl)
      .get(`/v1/admin/orders/${paid.merchantReference}`)
      .set(the.service.adminAuth);
    expect(detail.body.order.refund).toMatchObject({ id: retry.body.refund.id });
  });

  it('turns 20 concurrent refund requests into exactly one gateway request and 19 clear 409s', async () => {
    const paid = await the.fixtures.paidOrder('card');
    const before = await the.fixtures.refundRequests();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => refund(paid.merchantReference, { amount: '1500.00' })),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    for (const conflict of answers.filter((a) => a.status === 409)) {
      expect(conflict.body.error.code).toBe('refund_already_requested');
    }
    expect(await the.fixtures.refundRequests()).toBe(before + 1);
    expect(await the.dataSource.getRepository(RefundEntity).countBy({ orderId: paid.id })).toBe(1);
    const atGateway = await the.service.sandbox.control.order(paid.orderTrackingId as string);
    expect(atGateway.refund_requests).toBe(1);
    expect(atGateway.refund).toMatchObject({ amount: 1500 });
  });

  it('refuses refunds of unpaid and failed orders with order_not_refundable', async () => {
    const before = await the.fixtures.refundRequests();
    const unpaid = await the.fixtures.hostedOrder();
    const failed = await the.fixtures.settle(await the.fixtures.hostedOrder(), 'failed');
    expect(failed.status).toBe('failed');
    for (const order of [unpaid, failed]) {
      const response = await refund(order.merchantReference, { amount: '1500.00' });
      expect(response.status).toBe(409);
      expect(response.body.error).toMatchObject({
        code: 'order_not_refundable',
        order_status: order.status,
      });
    }
    expect(await the.fixtures.refundRequests()).toBe(before);
  });

  it('refunds mobile money in full only and rejects inexact or excessive amounts', async () => {
    const paid = await the.fixtures.paidOrder('mobile_money');
    const partial = await refund(paid.merchantReference, {
      amount: '100.00',
      confirm_partial: true,
    });
    expect([partial.status, partial.body.error.code]).toEqual([422, 'partial_refund_not_allowed']);
    const tooMuch = await refund(paid.merchantReference, { amount: '1500.01' });
    expect([tooMuch.status, tooMuch.body.error.code]).toEqual([422, 'refund_exceeds_payment']);
    const inexact = await refund(paid.merchantReference, { amount: '10.005' });
    expect(inexact.status).toBe(400);
    expect(inexact.body.error.errors[0].field).toBe('amount');
    const asNumber = await refund(paid.merchantReference, { amount: 1500 });
    expect(asNumber.status).toBe(400);
    expect((await refund(paid.merchantReference, { amount: '1500' })).status).toBe(201);
  });

  it('leaves a refund unknown when the gateway fails on its side, until an admin resolves it', async () => {
    const paid = await the.fixtures.paidOrder('card');
    // The gateway fails on its side (HTTP 500): the request may or may not have been taken.
    await the.service.sandbox.control.fault('RefundRequest', 'http500', { times: 1 });
    const response = await refund(paid.merchantReference, { amount: '1500.00' });
    expect(response.status).toBe(201);
    expect(response.body.refund.status).toBe('unknown');
    const id = response.body.refund.id as string;

    const unknown = await request(the.service.apiUrl)
      .get('/v1/admin/refunds?status=unknown')
      .set(the.service.adminAuth);
    expect(unknown.body.items.map((r: { id: string }) => r.id)).toContain(id);

    const resolved = await request(the.service.apiUrl)
      .post(`/v1/admin/refunds/${id}/resolve`)
      .set(the.service.adminAuth)
      .send({ status: 'accepted', note: 'seen as received in the merchant dashboard' });
    expect(resolved.status).toBe(200);
    expect(resolved.body.refund).toMatchObject({
      status: 'accepted',
      resolved_by: 'test-admin',
      resolution_note: 'seen as received in the merchant dashboard',
    });
    const again = await request(the.service.apiUrl)
      .post(`/v1/admin/refunds/${id}/resolve`)
      .set(the.service.adminAuth)
      .send({ status: 'accepted', note: 'twice' });
    expect([again.status, again.body.error.code]).toEqual([409, 'refund_transition_not_allowed']);
    expect(await outboxTypes(paid.id)).toEqual(['order.completed', 'refund.accepted']);
  });

  it('lists refunds filtered by status, currency and date, newest first', async () => {
    const all = await request(the.service.apiUrl)
      .get('/v1/admin/refunds?currency=KES&limit=100')
      .set(the.service.adminAuth);
    expect(all.status).toBe(200);
    expect(all.body.items.length).toBeGreaterThanOrEqual(5);
    const created = all.body.items.map((r: { created_at: string }) => r.created_at);
    expect([...created].sort().reverse()).toEqual(created);
    const future = await request(the.service.apiUrl)
      .get(`/v1/admin/refunds?from=${new Date(Date.now() + 3600_000).toISOString()}`)
      .set(the.service.adminAuth);
    expect([future.body.items, future.body.next_cursor]).toEqual([[], null]);
    const usd = await request(the.service.apiUrl)
      .get('/v1/admin/refunds?currency=USD')
      .set(the.service.adminAuth);
    expect([usd.body.items, usd.body.next_cursor]).toEqual([[], null]);
    const bad = await request(the.service.apiUrl)
      .get('/v1/admin/refunds?status=maybe')
      .set(the.service.adminAuth);
    expect(bad.status).toBe(400);
  });
});
