import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { IpnRegistrationEntity, OrderEntity } from '@app/persistence';
import { IpnRegistrationService } from '@app/checkout/orders/ipn-registration.service';
import { RunningService, startService } from '../support/service';
import { getOrder, hostedBody, postCheckout, pushBody } from './support';

describe('checkouts: gateway failures mapped (sandbox fault injection)', () => {
  let service: RunningService;
  let dataSource: DataSource;
  const row = (reference: unknown) =>
    dataSource.getRepository(OrderEntity).findOneByOrFail({ merchantReference: String(reference) });

  beforeAll(async () => {
    // ZZZ passes our list but not the gateway's; a short timeout keeps the timeout cases quick.
    service = await startService({
      env: { PESAPAL_TIMEOUT_MS: '500', CURRENCIES: 'KES,USD,ZZZ' },
    });
    dataSource = service.apiApp.get(DataSource);
  });
  afterAll(() => service?.close());
  afterEach(() => service.sandbox.control.reset());

  it('a notification id the gateway no longer knows (InvalidIpnId) is replaced by registering again, and the order goes through', async () => {
    const ipn = service.apiApp.get(IpnRegistrationService);
    // A stored registration the gateway never issued (as after the sandbox restarted): the first
    // order sends it and is refused.
    const stale = randomUUID();
    await dataSource.getRepository(IpnRegistrationEntity).save({
      url: ipn.url(),
      method: ipn.method,
      ipnId: stale,
      gatewayCreatedAt: new Date(),
    });
    await service.sandbox.control.resetRequests();
    const body = hostedBody();
    const answer = await postCheckout(service, body);
    expect(answer.status).toBe(201);
    expect((await row(body.reference)).submissionStatus).toBe('submitted');
    const registration = await dataSource
      .getRepository(IpnRegistrationEntity)
      .findOneByOrFail({ url: ipn.url(), method: ipn.method });
    expect(registration.ipnId).not.toBe(stale);
    expect((await service.sandbox.control.requests()).counts).toMatchObject({
      RegisterIPN: 1,
      SubmitOrderRequest: 2,
    });
    // The next checkout sends the new id straight away.
    expect((await postCheckout(service, hostedBody())).status).toBe(201);
    expect((await service.sandbox.control.requests()).counts).toMatchObject({
      RegisterIPN: 1,
      SubmitOrderRequest: 3,
    });
  });

  it('a business rejection (currency the gateway does not take) answers 502 with its messages', async () => {
    const body = hostedBody({ currency: 'ZZZ' });
    const answer = await postCheckout(service, body);
    expect(answer.status).toBe(502);
    expect(answer.body.error.gateway.kind).toBe('rejected');
    expect(answer.body.error.gateway.messages.length).toBeGreaterThan(0);
    expect(await row(body.reference)).toMatchObject({
      submissionStatus: 'rejected',
      status: 'failed',
      nextPollAt: null,
    });
    // The same reference again gives the same answer without asking the gateway.
    await service.sandbox.control.resetRequests();
    const again = await postCheckout(service, body);
    expect(again.status).toBe(502);
    expect(again.body.error.gateway.kind).toBe('rejected');
    expect((await service.sandbox.control.requests()).counts.SubmitOrderRequest ?? 0).toBe(0);
  });

  it('a gateway timeout answers 504 and keeps the row as unknown, due for repair', async () => {
    await service.sandbox.control.fault('SubmitOrderRequest', 'timeout', { delayMs: 3000 });
    const body = hostedBody();
    const started = Date.now();
    const answer = await postCheckout(service, body);
    expect(answer.status).toBe(504);
    expect(answer.body.error.code).toBe('gateway_timeout');
    const order = await row(body.reference);
    expect(order.submissionStatus).toBe('unknown');
    expect(order.status).toBe('pending');
    expect(order.nextPollAt!.getTime()).toBeLessThanOrEqual(Date.now());
    expect(order.nextPollAt!.getTime()).toBeGreaterThanOrEqual(started - 1000);
    const view = await getOrder(service, String(body.reference));
    expect(view.body.timeline.map((e: { type: string }) => e.type)).toEqual([
      'created',
      'submission_unknown',
    ]);

    // Once the gateway answers again, a retry names the same order (no second one).
    await service.sandbox.control.reset();
    const retry = await postCheckout(service, body);
    expect(retry.status).toBe(200);
    expect(retry.body.order_tracking_id).toEqual(expect.any(String));
    expect((await row(body.reference)).submissionStatus).toBe('submitted');
  });

  it('a timed-out push answers 504 and is never pushed twice by a retry', async () => {
    await service.sandbox.control.fault('Stk', 'timeout', { delayMs: 3000 });
    const body = pushBody();
    const answer = await postCheckout(service, body, '/v1/checkouts/mobile-money');
    expect(answer.status).toBe(504);
    expect((await row(body.reference)).submissionStatus).toBe('unknown');
    await service.sandbox.control.reset();
    const retry = await postCheckout(service, body, '/v1/checkouts/mobile-money');
    expect(retry.status).toBe(409);
    expect(retry.body.error.code).toBe('checkout_outcome_unknown');
    expect((await service.sandbox.control.requests()).counts.Stk ?? 0).toBe(0);
  });

  it('a gateway answering 500 is a 502 and the row stays recoverable', async () => {
    await service.sandbox.control.fault('SubmitOrderRequest', 'http500');
    const body = hostedBody();
    const answer = await postCheckout(service, body);
    expect(answer.status).toBe(502);
    expect(answer.body.error.gateway.kind).toBe('unavailable');
    expect((await row(body.reference)).submissionStatus).toBe('unknown');
  });

  it('an Idempotency-Key retry after a timeout reaches the same order', async () => {
    await service.sandbox.control.fault('SubmitOrderRequest', 'timeout', { delayMs: 3000 });
    const body = hostedBody({ reference: undefined });
    const first = await postCheckout(service, body).set('Idempotency-Key', 'retry-after-timeout');
    expect(first.status).toBe(504);
    await service.sandbox.control.reset();
    const second = await postCheckout(service, body).set('Idempotency-Key', 'retry-after-timeout');
    expect(second.status).toBe(200);
    const third = await postCheckout(service, body).set('Idempotency-Key', 'retry-after-timeout');
    expect(third.body).toEqual(second.body);
    expect((await service.sandbox.control.requests()).counts.SubmitOrderRequest).toBe(1);
  });
});
