import request from 'supertest';
import { DataSource } from 'typeorm';
import { OrderEntity, OutboxEventEntity } from '@app/persistence';
import { RunningService, startService } from '../support/service';
import { getOrder, hostedBody, postCheckout } from './support';

describe('orders: cancel and the customer return redirect', () => {
  let service: RunningService;
  let dataSource: DataSource;

  beforeAll(async () => {
    service = await startService();
    dataSource = service.apiApp.get(DataSource);
  });
  afterAll(() => service?.close());

  const cancel = (reference: string) =>
    request(service.apiUrl)
      .post(`/v1/orders/${encodeURIComponent(reference)}/cancel`)
      .set(service.shopAuth);
  const returnVisit = (query: string) =>
    request(service.apiUrl).get(`/v1/checkouts/return?${query}`);
  /** The customer's choice on the sandbox's hosted page; its redirect is not followed. */
  const onHostedPage = (orderTrackingId: string, action: 'card' | 'cancel') =>
    fetch(new URL('/pesapaliframe/PesapalIframe3/Pay', service.sandbox.origin), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ OrderTrackingId: orderTrackingId, action }),
      redirect: 'manual',
    });

  it('cancels an unpaid order at the gateway, with its event and merchant event', async () => {
    const body = hostedBody();
    const created = await postCheckout(service, body).expect(201);
    const answer = await cancel(String(body.reference));
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('cancelled');
    expect(answer.body.timeline.at(-1)).toMatchObject({
      type: 'status_changed',
      from_status: 'pending',
      to_status: 'cancelled',
      source: 'api',
      actor: 'test-shop',
    });
    expect((await service.sandbox.control.order(created.body.order_tracking_id)).state).toBe(
      'cancelled',
    );
    const order = await dataSource
      .getRepository(OrderEntity)
      .findOneByOrFail({ merchantReference: String(body.reference) });
    expect(order.cancelledAt).toBeInstanceOf(Date);
    expect(order.nextPollAt).toBeNull();
    const outbox = await dataSource.getRepository(OutboxEventEntity).findBy({ orderId: order.id });
    expect(outbox.map((e) => e.type)).toEqual(['order.cancelled']);

    // Cancelling again changes nothing and says so.
    const again = await cancel(String(body.reference));
    expect(again.status).toBe(200);
    expect(
      (await dataSource.getRepository(OutboxEventEntity).findBy({ orderId: order.id })).length,
    ).toBe(1);
  });

  it('takes a cancel sent with a JSON content type and no body (curl without -d)', async () => {
    const body = hostedBody();
    await postCheckout(service, body).expect(201);
    const answer = await cancel(String(body.reference)).set('Content-Type', 'application/json');
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('cancelled');
  });

  it('answers 409 for a paid order, even when we learn of the payment only at cancel time', async () => {
    const body = hostedBody();
    const created = await postCheckout(service, body).expect(201);
    await service.sandbox.control.settle(created.body.order_tracking_id, 'completed');
    const answer = await cancel(created.body.order_tracking_id);
    expect(answer.status).toBe(409);
    expect(answer.body.error.code).toBe('order_paid');
    expect((await getOrder(service, String(body.reference))).body.status).toBe('completed');
    // Known paid: refused without asking the gateway.
    await service.sandbox.control.resetRequests();
    expect((await cancel(String(body.reference))).status).toBe(409);
    expect((await service.sandbox.control.requests()).counts.CancelOrder ?? 0).toBe(0);
  });

  it('sends a paying customer to return_url with reference and status completed', async () => {
    const body = hostedBody({ return_url: 'https://shop.example/thanks?cart=7' });
    const created = await postCheckout(service, body).expect(201);
    await service.sandbox.control.settle(created.body.order_tracking_id, 'completed');
    const answer = await returnVisit(
      `OrderTrackingId=${created.body.order_tracking_id}&OrderMerchantReference=${body.reference}&OrderNotificationType=CALLBACKURL`,
    );
    expect(answer.status).toBe(303);
    const target = new URL(answer.headers.location);
    expect(`${target.origin}${target.pathname}`).toBe('https://shop.example/thanks');
    expect(target.searchParams.get('cart')).toBe('7');
    expect(target.searchParams.get('reference')).toBe(body.reference);
    expect(target.searchParams.get('status')).toBe('completed');
    const order = await getOrder(service, String(body.reference));
    expect(order.body.timeline.at(-1)).toMatchObject({ to_status: 'completed', source: 'return' });
  });

  it('walks the hosted page: pay → callback_url (ours) → the shop', async () => {
    const body = hostedBody({ return_url: 'https://shop.example/done' });
    const created = await postCheckout(service, body).expect(201);
    const pay = await onHostedPage(created.body.order_tracking_id, 'card');
    expect(pay.status).toBe(303);
    const callback = new URL(pay.headers.get('location') ?? '');
    expect(`${callback.origin}${callback.pathname}`).toBe(`${service.apiUrl}/v1/checkouts/return`);
    const back = await returnVisit(callback.searchParams.toString());
    expect(back.status).toBe(303);
    expect(back.headers.location).toContain('https://shop.example/done?');
    expect(new URL(back.headers.location).searchParams.get('status')).toBe('completed');
  });

  it('cancels the attempt of a customer who cancelled on the hosted page, and says so on the way to cancel_url', async () => {
    const body = hostedBody({ cancel_url: 'https://shop.example/cart' });
    const created = await postCheckout(service, body).expect(201);
    const page = await onHostedPage(created.body.order_tracking_id, 'cancel');
    expect(page.status).toBe(303);
    const cancellation = new URL(page.headers.get('location') ?? '');
    expect(cancellation.searchParams.get('cancelled')).toBe('1');
    const back = await returnVisit(cancellation.searchParams.toString());
    expect(back.status).toBe(303);
    const target = new URL(back.headers.location);
    expect(`${target.origin}${target.pathname}`).toBe('https://shop.example/cart');
    expect(target.searchParams.get('reference')).toBe(body.reference);
    // The attempt is over (cancelled at the gateway); the order stays open for another attempt.
    expect(target.searchParams.get('status')).toBe('failed');
    expect(target.searchParams.get('attempt_cancelled')).toBe('1');
    expect((await service.sandbox.control.order(created.body.order_tracking_id)).state).toBe(
      'cancelled',
    );
    const order = (
      await request(service.apiUrl).get(`/v1/orders/${body.reference}`).set(service.shopAuth)
    ).body;
    expect(order).toMatchObject({ status: 'failed', failure_reason: 'cancelled_by_customer' });
    // A cancel, not a decline: the attempt is cancelled in the attempts list, the timeline and
    // the merchant event.
    const last = order.timeline[order.timeline.length - 1];
    expect(last).toMatchObject({
      type: 'attempt_cancelled',
      from_status: 'pending',
      to_status: 'failed',
    });
    const adminView = async () =>
      (
        await request(service.apiUrl)
          .get(`/v1/admin/orders/${body.reference}`)
          .set(service.adminAuth)
      ).body as { attempts: { number: number; status: string }[] };
    expect((await adminView()).attempts.map((a) => [a.number, a.status])).toEqual([
      [1, 'cancelled'],
    ]);
    const row = await dataSource
      .getRepository(OrderEntity)
      .findOneByOrFail({ merchantReference: String(body.reference) });
    const announced = async () =>
      (
        await dataSource
          .getRepository(OutboxEventEntity)
          .find({ where: { orderId: row.id }, order: { createdAt: 'ASC' } })
      ).map((event) => event.type);
    expect(await announced()).toEqual(['order.attempt_cancelled']);

    const retry = await request(service.apiUrl)
      .post(`/v1/orders/${body.reference}/attempts`)
      .set(service.shopAuth)
      .send({ method: 'hosted' });
    expect(retry.status).toBe(201);
    expect(retry.body.attempt).toBe(2);
    // Set aside, the first attempt stays cancelled; the second is under way.
    expect((await adminView()).attempts.map((a) => [a.number, a.status])).toEqual([
      [1, 'cancelled'],
      [2, 'pending'],
    ]);
    expect(await announced()).toEqual(['order.attempt_cancelled', 'order.attempt_started']);
  });

  it('without a return_url the customer lands on our small result page', async () => {
    const body = hostedBody({ return_url: undefined, cancel_url: undefined });
    const created = await postCheckout(service, body).expect(201);
    const back = await returnVisit(`OrderTrackingId=${created.body.order_tracking_id}`);
    expect(back.status).toBe(303);
    expect(back.headers.location).toContain(`${service.apiUrl}/v1/checkouts/result?`);
    const page = await request(service.apiUrl).get(
      new URL(back.headers.location).pathname + new URL(back.headers.location).search,
    );
    expect(page.status).toBe(200);
    expect(page.text).toContain(String(body.reference));
    expect(page.text).toContain('Payment not confirmed yet');
  });

  it('escapes what it echoes on the result page', async () => {
    const page = await request(service.apiUrl).get(
      '/v1/checkouts/result?reference=%3Cscript%3Ealert(1)%3C%2Fscript%3E&status=completed',
    );
    expect(page.text).not.toContain('<script>');
    expect(page.text).toContain('&lt;script&gt;');
  });
});
