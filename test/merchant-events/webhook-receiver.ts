import { IncomingHttpHeaders, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** What the shop's backend answers one delivery: a status (and headers), or nothing at all. */
export type ReceiverAnswer =
  { status: number; headers?: Record<string, string>; body?: string } | 'hang';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  eventId: string;
  type: string | null;
  orderReference: string | null;
  /** The secrets (of those the receiver holds) with which the official library verified it. */
  verifiedWith: string[];
  /** The status we answered; 0 when we never answered. */
  answered: number;
  at: number;
}

/**
 * The shop's backend, as a test double: records every POST, verifies it with the official
 * `standardwebhooks` library (never with our own code) against the secrets it is given, and
 * answers what `answer` says (200 by default).
 */
export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  secrets: string[];
  answer: (request: ReceivedWebhook, index: number) => ReceiverAnswer;
  forEvent(eventId: string): ReceivedWebhook[];
  /** Deliveries we answered 2xx. */
  delivered(): ReceivedWebhook[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(secrets: string[] = []): Promise<WebhookReceiver> {
  const hanging = new Set<() => void>();
  const receiver: WebhookReceiver = {
    url: '',
    received: [],
    secrets,
    answer: () => ({ status: 200 }),
    forEvent: (eventId) => receiver.received.filter((r) => r.eventId === eventId),
    delivered: () => receiver.received.filter((r) => r.answered >= 200 && r.answered < 300),
    close: async () => {
      for (const release of hanging) release();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let type: string | null = null;
      let orderReference: string | null = null;
      try {
        const parsed = JSON.parse(body) as {
          type?: string;
          data?: { order?: { reference?: string } };
        };
        type = parsed.type ?? null;
        orderReference = parsed.data?.order?.reference ?? null;
      } catch {
        // Recorded as it came; the test asserts on the body.
      }
      const verifiedWith = receiver.secrets.filter((secret) => {
        try {
          new Webhook(secret).verify(body, {
            'webhook-id': String(request.headers['webhook-id'] ?? ''),
            'webhook-timestamp': String(request.headers['webhook-timestamp'] ?? ''),
            'webhook-signature': String(request.headers['webhook-signature'] ?? ''),
          });
          return true;
        } catch {
          return false;
        }
      });
      const record: ReceivedWebhook = {
        headers: request.headers,
        body,
        eventId: String(request.headers['webhook-id'] ?? ''),
        type,
        orderReference,
        verifiedWith,
        answered: 0,
        at: Date.now(),
      };
      const answer = receiver.answer(record, receiver.received.length);
      receiver.received.push(record);
      if (answer === 'hang') {
        const release = () => response.destroy();
        hanging.add(release);
        response.on('close', () => hanging.delete(release));
        return;
      }
      record.answered = answer.status;
      response.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
      response.end(answer.body ?? (answer.status < 300 ? 'ok' : 'not now'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  receiver.url = `http://127.0.0.1:${port}/hooks/pesapal`;
  return receiver;
}
