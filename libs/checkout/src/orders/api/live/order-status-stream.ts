import type { ServerResponse } from 'node:http';
import { OrderStatus } from '@app/domain';
import { StatusChange, StatusListener } from './order-status-feed';

/** Where a waiting page stops listening: nothing it waits for comes after these. */
const FINAL: ReadonlySet<string> = new Set<OrderStatus>([
  'completed',
  'cancelled',
  'reversed',
  'expired',
]);

/** The browser's reconnect delay after a dropped connection (EventSource's `retry`). */
const RECONNECT_MS = 2000;

/**
 * One Server-Sent Events answer following one order: every status change as an `status` event
 * whose id is its timeline event's (so a reconnect with Last-Event-ID resumes after it), comment
 * heartbeats, and the end once the latest status is final. A first connection hears the whole
 * history, the current status last; a reconnection that has seen the final status gets 204,
 * which stops the browser's EventSource from reconnecting.
 */
export class OrderStatusStream implements StatusListener {
  private readonly sent = new Set<string>();
  private first = true;
  private heartbeat: NodeJS.Timeout | undefined;
  private ended = false;

  constructor(
    readonly orderId: string,
    private readonly reference: string,
    private readonly response: ServerResponse,
    private readonly lastEventId: string | null,
    private readonly heartbeatMs: number,
    private readonly onEnd: () => void,
  ) {
    response.on('close', () => this.end());
  }

  /** The answer's head, once it is known there is something to follow. */
  private open(): void {
    this.response.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      // nginx (the usual ingress) would otherwise buffer the stream.
      'X-Accel-Buffering': 'no',
      // Authorised by the token in its URL (no cookies): any shop page may read it.
      'Access-Control-Allow-Origin': '*',
    });
    this.response.write(`retry: ${RECONNECT_MS}\n\n`);
    this.heartbeat = setInterval(() => this.write(': keep-alive\n\n'), this.heartbeatMs);
  }

  changed(changes: StatusChange[]): void {
    if (this.ended) return;
    if (this.first) {
      this.first = false;
      const resumed = this.lastEventId
        ? changes.findIndex((change) => change.id === this.lastEventId)
        : -1;
      // Everything up to the event the browser last saw was sent on an earlier connection.
      for (const change of changes.slice(0, resumed + 1)) this.sent.add(change.id);
      const latest = changes[changes.length - 1];
      if (resumed === changes.length - 1 && latest && FINAL.has(latest.toStatus)) {
        // Seen to the end: 204 tells EventSource to stop reconnecting.
        this.response.writeHead(204, { 'Access-Control-Allow-Origin': '*' });
        this.end();
        return;
      }
      this.open();
    }
    for (const change of changes) {
      if (this.sent.has(change.id)) continue;
      this.sent.add(change.id);
      this.write(
        `id: ${change.id}\nevent: status\ndata: ${JSON.stringify({
          reference: this.reference,
          status: change.toStatus,
          from_status: change.fromStatus,
          source: change.source,
          at: change.at.toISOString(),
          details: change.details,
        })}\n\n`,
      );
    }
    const latest = changes[changes.length - 1];
    if (latest && FINAL.has(latest.toStatus)) this.end();
  }

  private write(text: string): void {
    if (!this.ended) this.response.write(text);
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.heartbeat);
    this.onEnd();
    if (!this.response.writableEnded) this.response.end();
  }
}
