/** The merchant's webhook receiver: answers one delivery in ten with a 503 (then retried). */
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { RECEIVER_FAILURE_SHARE } from './campaign';

export interface Delivery {
  type: string;
  reference: string | null;
  received: number;
}

export interface WebhookReceiver {
  /** By webhook-id: what each event was and how many times it was received. */
  deliveries: Map<string, Delivery>;
  /** Every POST, the refused ones included. */
  posts(): number;
  close(): void;
}

export async function startWebhookReceiver(port: number): Promise<WebhookReceiver> {
  const deliveries = new Map<string, Delivery>();
  let receiverPosts = 0;
  const receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      receiverPosts += 1;
      if (Math.random() < RECEIVER_FAILURE_SHARE) {
        res.writeHead(503).end();
        return;
      }
      const id = String(req.headers['webhook-id']);
      const event = JSON.parse(Buffer.concat(chunks).toString()) as {
        type: string;
        data?: { order?: { reference?: string } };
      };
      const known = deliveries.get(id);
      if (known) known.received += 1;
      else {
        deliveries.set(id, {
          type: event.type,
          reference: event.data?.order?.reference ?? null,
          received: 1,
        });
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
  return { deliveries, posts: () => receiverPosts, close: () => receiver.close() };
}
