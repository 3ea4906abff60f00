import type { ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { existsSync, readFileSync } from 'node:fs';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { IpnRoute } from '@app/checkout/ipn/api/ipn-route';
import { ShopKeyGuard } from '@app/checkout/operators/access-guards';
import { openTestDataSource } from '../support/database';
import { RunningService, startService, waitFor } from '../support/service';
import { inboxOf, ipnUrl, reference } from './ipn-support';

/** What the global hooks leave on a request they ran for. */
type Touched = FastifyRequest & {
  raw: FastifyRequest['raw'] & { log?: unknown; originalUrl?: string };
};

/** The request log lines (LOG_FILE, this process's) of the request with this X-Request-Id. */
const requestLinesOf = (requestId: string): { msg?: string }[] => {
  const file = process.env.LOG_FILE ?? '';
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.includes(`"id":"${requestId}"`))
    .map((line) => JSON.parse(line) as { msg?: string; req?: { id?: string } })
    .filter((line) => line.req?.id === requestId);
};

/** Its one "request completed" line, once written. */
const requestLineOf = (requestId: string) =>
  waitFor('the request log line', async () => {
    const lines = requestLinesOf(requestId);
    return lines.length > 0 ? lines : null;
  });

describe('hot routes: the global hooks a route does not need do not run', () => {
  let service: RunningService;
  let dataSource: DataSource;
  let received: Touched[] = [];
  /** The requests the shop's key guard saw, as the hooks before it left them. */
  let guarded: Touched[] = [];

  beforeAll(async () => {
    service = await startService({ env: { CORS_ALLOWED_ORIGINS: 'https://shop.example' } });
    dataSource = await openTestDataSource();
    // The route's handler sees the request as the hooks before it left it.
    const route = IpnRoute.prototype as unknown as {
      receive(request: FastifyRequest, ...rest: unknown[]): Promise<void>;
    };
    const receive = route.receive;
    jest.spyOn(route, 'receive').mockImplementation(function (this: unknown, request, ...rest) {
      received.push(request as Touched);
      return receive.call(this, request, ...rest);
    });
    const guard = ShopKeyGuard.prototype;
    const canActivate = guard.canActivate;
    jest.spyOn(guard, 'canActivate').mockImplementation(function (this: ShopKeyGuard, context) {
      guarded.push(context.switchToHttp().getRequest<Touched>());
      return canActivate.call(this, context);
    } as (context: ExecutionContext) => Promise<boolean>);
  }, 60_000);
  afterAll(async () => {
    jest.restoreAllMocks();
    await service?.close();
    await dataSource?.destroy();
  });
  beforeEach(() => {
    received = [];
    guarded = [];
  });

  it('the IPN route parses no cookie, runs no Nest middleware (no request logger), writes no request log line, answers no other origin and is still acknowledged', async () => {
    const trackingId = `hot-${reference()}`;
    const requestId = `ipn-${trackingId}`;
    const answer = await request(ipnUrl(service))
      .post('')
      .set('x-request-id', requestId)
      .set('content-type', 'application/json')
      .set('cookie', 'admin_session=%E0%A4%A; =; ;;')
      .set('origin', 'https://shop.example')
      .send({
        OrderTrackingId: trackingId,
        OrderMerchantReference: 'HOT-1',
        OrderNotificationType: 'IPNCHANGE',
      });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ orderTrackingId: trackingId, status: 200 });
    // A listed origin, which the shop's routes answer (test/contract/cors.e2e-spec.ts).
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    expect(received).toHaveLength(1);
    const [seen] = received;
    // @fastify/cookie's hook sets request.cookies (to {} at least); its decorator default is null.
    expect(seen.cookies).toBeNull();
    // pino-http (Nest middleware, through @fastify/middie) gives the raw request a logger, and
    // middie its originalUrl.
    expect(seen.raw.log).toBeUndefined();
    expect(seen.raw.originalUrl).toBeUndefined();
    expect(await inboxOf(dataSource, trackingId)).toHaveLength(1);
    // A request after it has its line written: none was for the notification.
    await request(service.apiUrl)
      .get('/v1/orders/NO-SUCH-HOT-ORDER')
      .set('x-request-id', `${requestId}-after`);
    await requestLineOf(`${requestId}-after`);
    expect(requestLinesOf(requestId)).toEqual([]);
  });

  it('the IPN route keeps a Content-Type sent without a body (the empty-body rewrite does not run)', async () => {
    const trackingId = `hot-${reference()}`;
    const answer = await request(ipnUrl(service))
      .get('')
      .query({
        OrderTrackingId: trackingId,
        OrderMerchantReference: 'HOT-2',
        OrderNotificationType: 'IPNCHANGE',
      })
      .set('content-type', 'application/json');
    expect(answer.status).toBe(200);
    const [row] = await inboxOf(dataSource, trackingId);
    expect(row.payload).toMatchObject({ contentType: 'application/json' });
  });

  it('the IPN route is counted in http_requests_total under its placeholder', async () => {
    const trackingId = `hot-${reference()}`;
    const count = async () => {
      const scrape = await request(service.apiUrl).get('/metrics');
      const line = scrape.text
        .split('\n')
        .find(
          (entry) =>
            entry.startsWith('http_requests_total{') &&
            entry.includes('route="/v1/ipn/:secret"') &&
            entry.includes('method="GET"') &&
            entry.includes('status="200"'),
        );
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const before = await count();
    await request(ipnUrl(service))
      .get('')
      .query({ OrderTrackingId: trackingId, OrderMerchantReference: 'HOT-3' })
      .expect(200);
    expect(await count()).toBe(before + 1);
  });

  it('a checkout parses no cookie, runs no Nest middleware, and keeps its request log line, the empty-body rewrite and CORS', async () => {
    const requestId = `hot-checkout-${reference()}`;
    const answer = await request(service.apiUrl)
      .post('/v1/checkouts')
      .set(service.shopAuth)
      .set('x-request-id', requestId)
      .set('content-type', 'application/json')
      .set('cookie', 'theme=dark')
      .set('origin', 'https://shop.example');
    // Today's answer to a Content-Type without a body: every missing field.
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('validation_failed');
    expect(answer.headers['access-control-allow-origin']).toBe('https://shop.example');
    expect(guarded).toHaveLength(1);
    const [seen] = guarded;
    expect(seen.cookies).toBeNull();
    expect(seen.raw.log).toBeUndefined();
    expect(seen.headers['content-type']).toBeUndefined();
    expect(await requestLineOf(requestId)).toEqual([
      expect.objectContaining({ msg: 'request completed', res: { statusCode: 400 } }),
    ]);
  });

  it('the status read parses no cookie, runs no Nest middleware, and keeps its request log line and CORS', async () => {
    const requestId = `hot-status-${reference()}`;
    const answer = await request(service.apiUrl)
      .get('/v1/orders/NO-SUCH-HOT-ORDER')
      .set(service.shopAuth)
      .set('x-request-id', requestId)
      .set('cookie', 'theme=dark')
      .set('origin', 'https://shop.example');
    expect(answer.status).toBe(404);
    expect(answer.headers['access-control-allow-origin']).toBe('https://shop.example');
    expect(guarded).toHaveLength(1);
    const [seen] = guarded;
    expect(seen.cookies).toBeNull();
    expect(seen.raw.log).toBeUndefined();
    expect(await requestLineOf(requestId)).toEqual([
      expect.objectContaining({ msg: 'request completed', res: { statusCode: 404 } }),
    ]);
  });

  it('a shop route that is not hot (cancel) still has its cookies parsed', async () => {
    const answer = await request(service.apiUrl)
      .post('/v1/orders/NO-SUCH-HOT-ORDER/cancel')
      .set(service.shopAuth)
      .set('cookie', 'theme=dark');
    expect(answer.status).toBe(404);
    expect(guarded).toHaveLength(1);
    expect(guarded[0].cookies).toEqual({ theme: 'dark' });
  });
});
