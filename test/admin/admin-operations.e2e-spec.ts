import { Queue, Worker } from 'bullmq';
import request from 'supertest';
import {
  IpnNotificationEntity,
  IpnRegistrationEntity,
  OrderEntity,
  OutboxEventEntity,
} from '@app/persistence';
import { loadServiceConfig } from '@app/config';
import { queueConnectionFor, QUEUES } from '@app/queues';
import { waitFor } from '../support/service';
import { adminSuiteForTests } from './admin-fixtures';

describe('admin operations (api + Postgres + Redis + sandbox gateway)', () => {
  const the = adminSuiteForTests();

  const get = (path: string) => request(the.service.apiUrl).get(path).set(the.service.adminAuth);
  const post = (path: string, body: object = {}) =>
    request(the.service.apiUrl).post(path).set(the.service.adminAuth).send(body);
  const search = async (q: string) => {
    const response = await get(`/v1/admin/orders?q=${encodeURIComponent(q)}`);
    expect(response.status).toBe(200);
    return response.body.items.map((o: { reference: string }) => o.reference) as string[];
  };

  it('finds an order by each of its identifiers', async () => {
    const card = await the.fixtures.paidOrder('card');
    const push = await the.fixtures.settle(
      await the.fixtures.pushOrder('+254712345678'),
      'completed',
      'mobile_money',
    );
    expect(push.pushMerchantReference).toBeTruthy();
    expect(push.confirmationCode).toBeTruthy();

    expect(await search(card.merchantReference)).toEqual([card.merchantReference]);
    expect(await search(card.orderTrackingId as string)).toEqual([card.merchantReference]);
    expect(await search(card.confirmationCode as string)).toEqual([card.merchantReference]);
    expect(await search((card.customerEmail as string).toUpperCase())).toEqual([
      card.merchantReference,
    ]);
    expect(await search(push.pushMerchantReference as string)).toEqual([push.merchantReference]);
    expect(await search(push.confirmationCode as string)).toEqual([push.merchantReference]);
    expect(await search('0712 345 678')).toContain(push.merchantReference);
    expect(await search('+254712345678')).toContain(push.merchantReference);
    expect(await search('no-such-order')).toEqual([]);
  });

  it('filters by status, currency and date, paginates, and counts per status', async () => {
    const pending = await the.fixtures.hostedOrder();
    const page = await get('/v1/admin/orders?status=pending&limit=1');
    expect(page.status).toBe(200);
    expect(page.body.items).toHaveLength(1);
    expect(page.body.items[0].status).toBe('pending');
    expect(page.body.counts.pending).toBeGreaterThanOrEqual(1);
    expect(page.body.counts.completed).toBeGreaterThanOrEqual(2);
    expect(page.body.count_cap).toBe(1000);
    const usd = await get('/v1/admin/orders?currency=USD');
    expect([usd.body.items, usd.body.next_cursor]).toEqual([[], null]);
    expect(Object.values(usd.body.counts as Record<string, number>).every((n) => n === 0)).toBe(
      true,
    );
    const future = await get(
      `/v1/admin/orders?from=${new Date(Date.now() + 60_000).toISOString()}`,
    );
    expect([future.body.items, future.body.next_cursor]).toEqual([[], null]);
    if (page.body.counts.pending > 1) {
      const second = await get(
        `/v1/admin/orders?status=pending&limit=1&cursor=${page.body.next_cursor}`,
      );
      expect(second.body.items[0]?.reference).not.toBe(page.body.items[0].reference);
    } else {
      expect(page.body.next_cursor).toBeNull();
    }
    expect(await search(pending.merchantReference)).toEqual([pending.merchantReference]);
    expect((await get('/v1/admin/orders?status=paid')).status).toBe(400);
  });

  it('shows an order with its timeline and refund, by reference or tracking id', async () => {
    const paid = await the.fixtures.paidOrder('card');
    const detail = await get(`/v1/admin/orders/${paid.orderTrackingId}`);
    expect(detail.status).toBe(200);
    expect(detail.body.order).toMatchObject({
      reference: paid.merchantReference,
      status: 'completed',
      customer_email: paid.customerEmail,
      refund: null,
    });
    expect(
      detail.body.timeline.map((e: { type: string; source: string }) => [e.type, e.source]),
    ).toEqual([['status_changed', 'admin']]);
    expect((await get('/v1/admin/orders/nope')).status).toBe(404);
  });

  it('cancels an unpaid order at the gateway, with an audited event and a merchant event', async () => {
    const order = await the.fixtures.hostedOrder();
    const response = await post(`/v1/admin/orders/${order.merchantReference}/cancel`, {
      note: 'customer asked',
    });
    expect(response.status).toBe(200);
    expect(response.body.order.status).toBe('cancelled');
    const change = response.body.timeline.find(
      (e: { to_status: string }) => e.to_status === 'cancelled',
    );
    expect(change).toMatchObject({ source: 'admin', actor: 'test-admin', from_status: 'pending' });
    expect((await the.service.sandbox.control.order(order.orderTrackingId as string)).state).toBe(
      'cancelled',
    );
    const outbox = await the.dataSource
      .getRepository(OutboxEventEntity)
      .findBy({ orderId: order.id });
    expect(outbox.map((e) => e.type)).toEqual(['order.cancelled']);

    const paid = await the.fixtures.paidOrder('card');
    const refused = await post(`/v1/admin/orders/${paid.merchantReference}/cancel`);
    expect([refused.status, refused.body.error.code]).toEqual([409, 'order_paid']);
  });

  it('lists stuck orders with the reason for each', async () => {
    const old = await the.fixtures.hostedOrder();
    await the.dataSource
      .getRepository(OrderEntity)
      .update({ id: old.id }, { createdAt: new Date(Date.now() - 2 * 3600_000) });
    const flagged = await the.fixtures.hostedOrder({
      needsReview: true,
      reviewReason: 'amount differs',
    });
    const fresh = await the.fixtures.hostedOrder();
    const response = await get('/v1/admin/orders/stuck?pending_minutes=60');
    expect(response.status).toBe(200);
    const reasons = new Map<string, string[]>(
      response.body.items.map((i: { order: { reference: string }; reasons: string[] }) => [
        i.order.reference,
        i.reasons,
      ]),
    );
    expect(reasons.get(old.merchantReference)).toEqual(['pending_too_long']);
    expect(reasons.get(flagged.merchantReference)).toEqual(['needs_review']);
    expect(reasons.has(fresh.merchantReference)).toBe(false);
  });

  it('reconciliation reports a planted difference with both sides and changes nothing', async () => {
    const paid = await the.fixtures.paidOrder('card');
    // Planted: our row says less was paid than the gateway recorded.
    await the.dataSource
      .getRepository(OrderEntity)
      .update({ id: paid.id }, { paidAmount: '15.00' });
    // Planted: an order cancelled without its status_changed event.
    const silent = await the.fixtures.hostedOrder();
    await the.dataSource
      .getRepository(OrderEntity)
      .update({ id: silent.id }, { status: 'cancelled' });

    const response = await post('/v1/admin/reconcile', { since_hours: 1 });
    expect(response.status).toBe(200);
    const report = response.body;
    expect(report).toMatchObject({ trigger: 'admin', requested_by: 'test-admin' });
    const planted = report.gateway_mismatches.find(
      (m: { reference: string }) => m.reference === paid.merchantReference,
    );
    expect(planted).toMatchObject({
      problem: 'paid amount: ours 15.00, gateway 1500.00',
      ours: { status: 'completed', paid_amount: '15.00' },
      gateway: { found: true, status_code: 1, amount: '1500.00' },
    });
    expect(report.invariant_violations.state_without_event).toContainEqual(
      expect.objectContaining({ reference: silent.merchantReference, status: 'cancelled' }),
    );
    expect(report.mismatch_count).toBeGreaterThanOrEqual(2);
    // Nothing fixed silently.
    const after = await the.dataSource.getRepository(OrderEntity).findOneByOrFail({ id: paid.id });
    expect(after.paidAmount).toBe('15.00');
    const stored = await get(`/v1/admin/reconciliation-reports/${report.id}`);
    expect(stored.body.gateway_mismatches).toEqual(report.gateway_mismatches);
  });

  it('lists, inspects and replays stored notifications', async () => {
    const inbox = the.dataSource.getRepository(IpnNotificationEntity);
    const row = await inbox.save(
      inbox.create({
        orderTrackingId: '00000000-0000-4000-8000-000000000001',
        merchantReference: 'unknown-ref',
        notificationType: 'IPNCHANGE',
        httpMethod: 'POST',
        payload: { OrderTrackingId: '00000000-0000-4000-8000-000000000001' },
        status: 'failed',
        attempts: 8,
        lastError: 'retries exhausted',
      }),
    );
    const failed = await get('/v1/admin/notifications?status=failed');
    expect(failed.body.items.map((n: { id: string }) => n.id)).toContain(row.id);
    expect((await get(`/v1/admin/notifications/${row.id}`)).body).toMatchObject({
      id: row.id,
      status: 'failed',
      payload: { OrderTrackingId: '00000000-0000-4000-8000-000000000001' },
    });
    const replay = await post(`/v1/admin/notifications/${row.id}/replay`);
    expect(replay.status).toBe(202);
    expect(replay.body.status).toBe('queued');
    const queue = new Queue(QUEUES.notificationBatches, {
      connection: queueConnectionFor(loadServiceConfig()),
      prefix: process.env.QUEUE_PREFIX,
    });
    try {
      const job = await queue.getJob(replay.body.job);
      expect(job?.data).toMatchObject({ notifications: [{ notificationId: row.id }] });
    } finally {
      await queue.close();
    }
  });

  it('lists, inspects and replays dead-letter jobs', async () => {
    const connection = queueConnectionFor(loadServiceConfig());
    const prefix = process.env.QUEUE_PREFIX;
    const queue = new Queue(QUEUES.orderSync, { connection, prefix });
    const job = await queue.add('sync-order', { orderId: 'gone', source: 'poll' }, { attempts: 1 });
    const worker = new Worker(
      QUEUES.orderSync,
      async () => {
        throw new Error('gateway unreachable');
      },
      { connection, prefix },
    );
    try {
      await waitFor('the job to fail', async () => (await job.getState()) === 'failed');
      await worker.close();
      const list = await get(`/v1/admin/dead-letters?queue=${QUEUES.orderSync}`);
      expect(list.status).toBe(200);
      expect(list.body.items).toContainEqual(
        expect.objectContaining({
          id: job.id,
          name: 'sync-order',
          failed_reason: 'gateway unreachable',
        }),
      );
      const one = await get(`/v1/admin/dead-letters/${QUEUES.orderSync}/${job.id}`);
      expect(one.body).toMatchObject({ state: 'failed', data: { orderId: 'gone' } });
      const replay = await post(`/v1/admin/dead-letters/${QUEUES.orderSync}/${job.id}/replay`);
      expect(replay.status).toBe(202);
      expect(replay.body.state).toBe('waiting');
      const again = await post(`/v1/admin/dead-letters/${QUEUES.orderSync}/${job.id}/replay`);
      expect([again.status, again.body.error.code]).toEqual([409, 'job_not_failed']);
      expect((await get('/v1/admin/dead-letters?queue=nope')).status).toBe(404);
    } finally {
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it('lists the registered IPN URLs without their secret path segment', async () => {
    const registrations = the.dataSource.getRepository(IpnRegistrationEntity);
    const ours = `${the.service.apiUrl}/v1/ipn/${the.service.env.IPN_PATH_SECRET}`;
    await registrations.save([
      registrations.create({
        url: `${the.service.apiUrl}/v1/ipn/listed`,
        method: 'POST',
        ipnId: '11111111-2222-4333-8444-555555555555',
      }),
      registrations.create({
        url: ours,
        method: 'POST',
        ipnId: '11111111-2222-4333-8444-666666666666',
      }),
    ]);
    const response = await get('/v1/admin/ipn-registrations');
    expect(response.status).toBe(200);
    expect(response.body.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          url: `${the.service.apiUrl}/v1/ipn/[redacted]`,
          current: false,
          method: 'POST',
          ipn_id: '11111111-2222-4333-8444-555555555555',
        }),
        expect.objectContaining({
          url: `${the.service.apiUrl}/v1/ipn/[redacted]`,
          current: true,
          ipn_id: '11111111-2222-4333-8444-666666666666',
        }),
      ]),
    );
    const body = JSON.stringify(response.body);
    expect(body).not.toContain('/v1/ipn/listed');
    expect(body).not.toContain(String(the.service.env.IPN_PATH_SECRET));
  });

  it('keeps the queue dashboard behind the admin key (Bearer or session cookie)', async () => {
    expect((await request(the.service.apiUrl).get('/admin/queues')).status).toBe(401);
    // A shop key is known, and not allowed here (as on every admin route).
    expect(
      (await request(the.service.apiUrl).get('/admin/queues').set(the.service.shopAuth)).status,
    ).toBe(403);
    const withBearer = await request(the.service.apiUrl)
      .get('/admin/queues')
      .set(the.service.adminAuth);
    expect(withBearer.status).toBe(200);
    expect(withBearer.text).toContain('<html');
    const api = await request(the.service.apiUrl)
      .get('/admin/queues/api/queues')
      .set(the.service.adminAuth);
    expect(api.status).toBe(200);
    expect(JSON.stringify(api.body)).toContain(QUEUES.orderSync);

    expect(
      (await request(the.service.apiUrl).post('/admin/session').set(the.service.shopAuth)).status,
    ).toBe(403);
    const session = await request(the.service.apiUrl)
      .post('/admin/session')
      .set(the.service.adminAuth);
    expect(session.status).toBe(204);
    const cookie = String(session.headers['set-cookie']);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\/admin/);
    expect(cookie).not.toMatch(/Secure/); // not production
    expect(cookie).not.toContain(the.service.adminKey);
    const pair = cookie.split(';')[0];
    const viaCookie = await request(the.service.apiUrl).get('/admin/queues').set('Cookie', pair);
    expect(viaCookie.status).toBe(200);
    // Another name with the same signature is refused.
    const forged = pair.replace(/=([^.]+)\./, `=${Buffer.from('someone').toString('base64url')}.`);
    expect(
      (await request(the.service.apiUrl).get('/admin/queues').set('Cookie', forged)).status,
    ).toBe(401);
    const signedOut = await request(the.service.apiUrl).delete('/admin/session');
    expect(String(signedOut.headers['set-cookie'])).toMatch(
      /admin_session=;.*Expires=Thu, 01 Jan 1970/,
    );
  });

  it('serves the console without any key in it', async () => {
    const page = await request(the.service.apiUrl).get('/admin');
    expect(page.status).toBe(200);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['x-frame-options']).toBe('DENY');
    const script = await request(the.service.apiUrl).get('/admin/app.js');
    expect(script.status).toBe(200);
    for (const body of [page.text, script.text]) {
      expect(body).not.toContain(the.service.adminKey);
    }
    expect(script.text).toContain('sessionStorage');
  });
});
