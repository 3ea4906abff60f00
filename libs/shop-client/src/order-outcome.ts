import { ShopApiError, ShopApiUnreachable } from './errors';

/** How an order ended up, as a waiting page needs it. */
export type OrderOutcome =
  | { outcome: 'paid'; reference: string; status: 'completed' }
  | {
      outcome: 'failed';
      reference: string;
      status: string;
      /** True when the customer can try again (POST /v1/orders/{reference}/attempts). */
      retryable: boolean;
    }
  | { outcome: 'pending'; reference: string; status: string | null };

export interface WaitOptions {
  baseUrl: string;
  reference: string;
  /** The checkout answer's status_token: read-only, this order only (no shop key needed). */
  statusToken: string;
  /** Give up and answer `pending` after this long (default 3 minutes). */
  timeoutMs?: number;
  /** Before reconnecting after the stream dropped or could not be held open (default 3 s). */
  pollIntervalMs?: number;
  /**
   * A connection silent this long is dropped and made again (default 45 s; the api sends a
   * heartbeat every 15 s, so silence means a proxy holds the stream back).
   */
  idleTimeoutMs?: number;
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/** A status after which the order can take a new attempt, or none (paid or closed for good). */
const CLOSED = new Set(['cancelled', 'expired', 'reversed']);
/**
 * A status is only the outcome if nothing follows it at once: a connection first replays the
 * order's history (a failed attempt before a paid one, a payment before its reversal).
 */
const SETTLE_MS = 300;

interface StatusEvent {
  status: string;
}

/**
 * Follows the order's live status (Server-Sent Events) until it is paid, failed or closed, or the
 * time is up. Each connection first hears the order's history with its current status last, so
 * when the stream cannot be held open (a proxy that buffers, a network that drops it) the client
 * reconnects every `pollIntervalMs`, which polls. Works with the fetch of Node 20 and browsers.
 */
export async function waitForOutcome(options: WaitOptions): Promise<OrderOutcome> {
  const doFetch = options.fetch ?? fetch;
  const deadline = Date.now() + (options.timeoutMs ?? 180_000);
  const pollMs = options.pollIntervalMs ?? 3_000;
  let latest: string | null = null;
  const url = `${options.baseUrl.replace(/\/$/, '')}/v1/orders/${encodeURIComponent(
    options.reference,
  )}/stream?status_token=${encodeURIComponent(options.statusToken)}`;

  const idleMs = options.idleTimeoutMs ?? 45_000;
  while (Date.now() < deadline) {
    if (options.signal?.aborted) throw new ShopApiUnreachable('stopped waiting');
    const connection = new AbortController();
    const stop = () => connection.abort();
    options.signal?.addEventListener('abort', stop, { once: true });
    const timer = setTimeout(stop, deadline - Date.now());
    try {
      const answer = await doFetch(url, {
        headers: { Accept: 'text/event-stream' },
        signal: connection.signal,
      });
      if (answer.status === 401 || answer.status === 404) {
        throw ShopApiError.fromAnswer(answer.status, await answer.json().catch(() => null));
      }
      if (answer.status === 200 && answer.body) {
        const outcome = await followStream(
          answer.body,
          options.reference,
          // Silent too long, or the time is up: this connection ends either way.
          () => Math.max(0, Math.min(idleMs, deadline - Date.now())),
          (status) => {
            latest = status;
          },
        );
        if (outcome) return outcome;
      }
    } catch (error) {
      if (error instanceof ShopApiError) throw error;
      if (options.signal?.aborted) throw new ShopApiUnreachable('stopped waiting', error);
      // A dropped or refused connection: poll again below.
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', stop);
      connection.abort();
    }
    const outcome = outcomeOf(options.reference, latest);
    if (outcome) return outcome;
    await delay(Math.min(pollMs, Math.max(0, deadline - Date.now())), options.signal);
  }
  return { outcome: 'pending', reference: options.reference, status: latest };
}

function outcomeOf(reference: string, status: string | null): OrderOutcome | null {
  if (status === 'completed') return { outcome: 'paid', reference, status };
  if (status && CLOSED.has(status))
    return { outcome: 'failed', reference, status, retryable: false };
  if (status === 'failed') return { outcome: 'failed', reference, status, retryable: true };
  return null;
}

/**
 * Reads events until a status with an outcome has stood for SETTLE_MS, the stream ends, or it is
 * quiet for quietLimitMs(); null when it ended or went quiet without an outcome.
 */
async function followStream(
  body: ReadableStream<Uint8Array>,
  reference: string,
  quietLimitMs: () => number,
  seen: (status: string) => void,
): Promise<OrderOutcome | null> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let latest: string | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    for (;;) {
      const settling = outcomeOf(reference, latest) !== null;
      const next = await Promise.race([
        reader.read(),
        new Promise<'settled' | 'silent'>((resolve) => {
          timer = setTimeout(
            () => resolve(settling ? 'settled' : 'silent'),
            settling ? SETTLE_MS : quietLimitMs(),
          );
        }),
      ]);
      clearTimeout(timer);
      if (next === 'settled') return outcomeOf(reference, latest);
      if (next === 'silent') return null;
      if (next.done) return outcomeOf(reference, latest);
      buffer += decoder.decode(next.value, { stream: true });
      let boundary: number;
      while ((boundary = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const block = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary).replace(/^\r?\n\r?\n/, '');
        const event = parseEvent(block);
        if (!event) continue;
        latest = event.status;
        seen(event.status);
      }
    }
  } finally {
    clearTimeout(timer);
    await reader.cancel().catch(() => undefined);
  }
}

/** One Server-Sent Events block: a `status` event's data, or null for comments and others. */
function parseEvent(block: string): StatusEvent | null {
  let type = 'message';
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') type = value;
    else if (field === 'data') data.push(value);
  }
  if (type !== 'status' || data.length === 0) return null;
  try {
    const parsed = JSON.parse(data.join('\n')) as { status?: unknown };
    return typeof parsed.status === 'string' ? { status: parsed.status } : null;
  } catch {
    return null;
  }
}

/** Waits `ms`, or less when `signal` aborts. */
const delay = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
