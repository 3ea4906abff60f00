import { createHmac, timingSafeEqual } from 'node:crypto';
import { IncomingHttpHeaders, createServer } from 'node:http';
import { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  eventId: string;
  orderReference: string | null;
  /** The status we answered; 0 when we never answered. */
  answered: number;
}

/**
 * The shop's backend, as a test double: records every POST and answers 200, except that it can
 * be told to fail the first N deliveries for an order.
 */
export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  forEvent(eventId: string): ReceivedWebhook[];
  failFirst(orderReference: string, times: number): void;
  /** Never answers the first N deliveries for the order (the sender must time out). */
  hangFirst(orderReference: string, times: number): void;
  close(): Promise<void>;
}

const eventIdOf = (headers: IncomingHttpHeaders) =>
  String(headers['pesapal-checkout-event-id'] ?? '');

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const failuresLeft = new Map<string, number>();
  const hangsLeft = new Map<string, number>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let orderReference: string | null = null;
      try {
        const parsed = JSON.parse(body) as { data?: { order?: { reference?: string } } };
        orderReference = parsed.data?.order?.reference ?? null;
      } catch {
        // Recorded as it came; the test asserts on the body.
      }
      const hangs = orderReference ? (hangsLeft.get(orderReference) ?? 0) : 0;
      if (hangs > 0 && orderReference) {
        hangsLeft.set(orderReference, hangs - 1);
        received.push({
          headers: request.headers,
          body,
          eventId: eventIdOf(request.headers),
          orderReference,
          answered: 0,
        });
        return;
      }
      const left = orderReference ? (failuresLeft.get(orderReference) ?? 0) : 0;
      const status = left > 0 ? 503 : 200;
      if (left > 0 && orderReference) failuresLeft.set(orderReference, left - 1);
      received.push({
        headers: request.headers,
        body,
        eventId: eventIdOf(request.headers),
        orderReference,
        answered: status,
      });
      response.writeHead(status, { 'content-type': 'text/plain' });
      response.end(status === 200 ? 'ok' : 'receiver is down for maintenance');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/pesapal`,
    received,
    forEvent: (eventId) => received.filter((r) => r.eventId === eventId),
    failFirst: (orderReference, times) => failuresLeft.set(orderReference, times),
    hangFirst: (orderReference, times) => hangsLeft.set(orderReference, times),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * What a shop runs (the README's snippet): accept when any v1 signature matches HMAC-SHA256 of
 * `${t}.${rawBody}` under the shop's secret and t is recent.
 */
export function verifySignature(
  header: string,
  rawBody: string,
  secret: string,
  toleranceSeconds = 300,
): boolean {
  const pairs = header.split(',').map((part) => {
    const at = part.indexOf('=');
    return [part.slice(0, at), part.slice(at + 1)] as const;
  });
  const timestamp = Number(pairs.find(([key]) => key === 't')?.[1]);
  if (!Number.isInteger(timestamp)) return false;
  if (Math.abs(Date.now() / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest();
  return pairs
    .filter(([key]) => key === 'v1')
    .some(([, hex]) => {
      const given = Buffer.from(hex, 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}
