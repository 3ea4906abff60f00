import { get, IncomingMessage } from 'node:http';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { requestContextHolds } from '@app/common';
import { hostedBody, postCheckout } from '../checkout/support';
import { freePort, RunningService, startService, waitFor } from '../support/service';
import { createApiUnderContract } from '../support/api-contract';

interface ServerSentEvent {
  id: string | null;
  event: string;
  data: Record<string, unknown>;
  receivedAt: number;
}

interface OpenStream {
  status: number;
  headers: IncomingMessage['headers'];
  events: ServerSentEvent[];
  comments: number;
  ended: Promise<void>;
  close(): void;
}

/** A minimal EventSource: the answer's status, then its events and comments as they come. */
function openStream(url: string, headers: Record<string, string> = {}): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = get(url, { headers: { Accept: 'text/event-stream', ...headers } });
    req.once('error', reject);
    req.once('response', (response: IncomingMessage) => {
      const stream: OpenStream = {
        status: response.statusCode ?? 0,
        headers: response.headers,
        events: [],
        comments: 0,
        ended: new Promise((done) => response.once('close', () => done())),
        close: () => req.destroy(),
      };
      let buffer = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = new Map<string, string>();
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) stream.comments += 1;
            const colon = line.indexOf(':');
            if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1).trim());
          }
          if (fields.has('data')) {
            stream.events.push({
              id: fields.get('id') ?? null,
              event: fields.get('event') ?? 'message',
              data: JSON.parse(fields.get('data')!) as Record<string, unknown>,
              receivedAt: Date.now(),
            });
          }
        }
      });
      resolve(stream);
    });
  });
}

describe('live order status (Server-Sent Events)', () => {
  let service: RunningService;
  let secondApi: NestFastifyApplication;
  let secondApiUrl: string;

  beforeAll(async () => {
    service = await startService({
      worker: true,
      env: { ORDER_STREAM_POLL_MS: '100', ORDER_STREAM_HEARTBEAT_MS: '300' },
    });
    // A second api replica on the same database: the subscriber's, while the first api and its
    // worker take the payment.
    secondApi = await createApiUnderContract();
    const port = await freePort();
    await secondApi.listen(port, '127.0.0.1');
    secondApiUrl = `http://127.0.0.1:${port}`;
  }, 60_000);

  afterAll(async () => {
    await secondApi?.close();
    await service?.close();
  });

  const streamUrl = (base: string, reference: string, token?: string) =>
    `${base}/v1/orders/${encodeURIComponent(reference)}/stream${token ? `?status_token=${token}` : ''}`;

  it('answers a status_token with every checkout, the same on a replay by Idempotency-Key', async () => {
    const body = hostedBody();
    const first = await request(service.apiUrl)
      .post('/v1/checkouts')
      .set(service.shopAuth)
      .set('Idempotency-Key', `live-${body.reference}`)
      .send(body);
    expect(first.status).toBe(201);
    expect(first.body.status_token).toMatch(/^pst_[A-Za-z0-9_-]{43}$/);
    const replay = await request(service.apiUrl)
      .post('/v1/checkouts')
      .set(service.shopAuth)
      .set('Idempotency-Key', `live-${body.reference}`)
      .send(body);
    expect(replay.body.status_token).toBe(first.body.status_token);
    const other = await postCheckout(service, hostedBody());
    expect(other.body.status_token).not.toBe(first.body.status_token);
  });

  it('shows a browser on one api replica the completion the other applied, within a second, then ends', async () => {
    const body = hostedBody();
    const created = await postCheckout(service, body);
    const stream = await openStream(
      streamUrl(secondApiUrl, String(body.reference), created.body.status_token),
    );
    expect(stream.status).toBe(200);
    // Counted by the rate limiter like every route, and told so in its head.
    expect(Number(stream.headers['x-ratelimit-remaining'])).toBeGreaterThan(0);
    expect(stream.headers['access-control-allow-origin']).toBe('*');
    await waitFor('the history', async () => stream.events.length >= 1 || null);
    expect(stream.events[0]).toMatchObject({
      event: 'status',
      data: { reference: body.reference, status: 'pending' },
    });
    // The feed writes the open stream: it keeps no request context on for every payment meanwhile.
    await waitFor('the stream’s request context released', async () =>
      requestContextHolds() === 0 ? true : null,
    );

    await service.sandbox.control.settle(created.body.order_tracking_id, 'completed', 'card');
    await waitFor(
      'the completion on the stream',
      async () => stream.events.some((e) => e.data.status === 'completed') || null,
      10_000,
      20,
    );
    const completed = stream.events.find((e) => e.data.status === 'completed')!;
    expect(completed.data).toMatchObject({ from_status: 'pending', source: 'ipn' });
    // From the commit that applied it (its timeline time) to the browser.
    expect(completed.receivedAt - Date.parse(String(completed.data.at))).toBeLessThan(1000);
    await stream.ended;
    expect(stream.events.map((e) => e.data.status)).toEqual(['pending', 'completed']);
  });

  it('resumes after a disconnect from Last-Event-ID without losing or repeating an event', async () => {
    const body = hostedBody();
    const created = await postCheckout(service, body);
    const token = created.body.status_token as string;
    const first = await openStream(streamUrl(service.apiUrl, String(body.reference), token));
    await waitFor('the history', async () => first.events.length >= 1 || null);
    const seen = first.events[first.events.length - 1].id!;
    first.close();

    // While the browser is away the payment fails, then the customer pays.
    await service.sandbox.control.settle(created.body.order_tracking_id, 'failed', 'card');
    await waitFor(
      'the order failed',
      async () =>
        (await request(service.apiUrl).get(`/v1/orders/${body.reference}`).set(service.shopAuth))
          .body.status === 'failed' || null,
    );
    const resumed = await openStream(streamUrl(service.apiUrl, String(body.reference), token), {
      'Last-Event-ID': seen,
    });
    await waitFor('the missed event', async () => resumed.events.length >= 1 || null);
    expect(resumed.events.map((e) => e.data.status)).toEqual(['failed']);
    // Heartbeats keep the idle stream open.
    await waitFor('a heartbeat', async () => resumed.comments >= 1 || null, 5_000, 50);

    await service.sandbox.control.settle(created.body.order_tracking_id, 'completed', 'card');
    await resumed.ended;
    expect(resumed.events.map((e) => e.data.status)).toEqual(['failed', 'completed']);

    // Seen to the end: 204, which stops EventSource from reconnecting.
    const again = await openStream(streamUrl(service.apiUrl, String(body.reference), token), {
      'Last-Event-ID': resumed.events[resumed.events.length - 1].id!,
    });
    expect(again.status).toBe(204);
  });

  it('refuses a wrong, foreign or missing status_token with 401 and takes the shop key', async () => {
    const body = hostedBody();
    const created = await postCheckout(service, body);
    const foreign = (await postCheckout(service, hostedBody())).body.status_token as string;
    const token = created.body.status_token as string;
    const flipped = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    for (const wrong of [flipped, foreign, 'pst_nothing', undefined]) {
      const answer = await request(service.apiUrl).get(
        `/v1/orders/${body.reference}/stream${wrong ? `?status_token=${wrong}` : ''}`,
      );
      expect({ wrong, status: answer.status, code: answer.body.error?.code }).toEqual({
        wrong,
        status: 401,
        code: 'unauthenticated',
      });
    }
    // An unknown order answers the same as a wrong token: nothing to learn by guessing.
    const unknown = await request(service.apiUrl).get(
      `/v1/orders/NO-SUCH-ORDER/stream?status_token=${token}`,
    );
    expect(unknown.status).toBe(401);

    const byShop = await openStream(streamUrl(service.apiUrl, String(body.reference)), {
      Authorization: `Bearer ${service.shopKey}`,
    });
    expect(byShop.status).toBe(200);
    await waitFor('the history', async () => byShop.events.length >= 1 || null);
    byShop.close();
  });
});
