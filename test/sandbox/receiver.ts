import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: URL;
  body: string;
  contentType: string | undefined;
}

/** A tiny local HTTP server recording what it receives (IPN receiver, shop callback page). */
export class Receiver {
  readonly received: ReceivedRequest[] = [];
  /** Per-request answer: HTTP status, optional delay before answering. */
  respond: (req: ReceivedRequest) => { status: number; delayMs?: number; body?: string } = () => ({
    status: 200,
  });
  private server!: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        const record: ReceivedRequest = {
          method: req.method ?? '',
          url: new URL(req.url ?? '/', 'http://receiver'),
          body,
          contentType: req.headers['content-type'],
        };
        this.received.push(record);
        const answer = this.respond(record);
        const send = (): void => {
          if (res.destroyed) return;
          res.writeHead(answer.status, { 'content-type': 'text/html' });
          res.end(answer.body ?? '<p>ok</p>');
        };
        if (answer.delayMs) setTimeout(send, answer.delayMs);
        else send();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
