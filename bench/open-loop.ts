/**
 * An open-loop HTTP/1.1 load generator: requests go out at planned times whatever the answers,
 * and each latency is counted from the planned time (so a stall of the server, or of this
 * process, shows up in full instead of delaying the sends behind it). Requests are built before
 * the run and written as bytes on kept-alive sockets, one in flight per socket; answers are read
 * with just enough parsing to find the status and the body. It costs a fraction of node:http's
 * CPU per request, which matters here: the generator shares the machine with what it measures.
 */
import { connect, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface OpenLoopRequest {
  method: 'GET' | 'POST';
  path: string;
  /** A JSON body (sent with Content-Type application/json). */
  body?: unknown;
}

export interface OpenLoopResult {
  /** Milliseconds from each request's planned send to its answer (-1: no answer). */
  latencies: Float64Array;
  /** Each request's HTTP status (0: no answer). */
  statuses: Uint16Array;
  /** Each answer's body, when asked for. */
  bodies: string[];
  /** Seconds from the first planned send to the last answer. */
  elapsedSeconds: number;
  /** Date.now() when the last request was sent. */
  lastSentAt: number;
}

interface Connection {
  socket: Socket;
  /** The request in flight on this socket, or -1. */
  inFlight: number;
  buffered: Buffer;
}

const HEADER_END = Buffer.from('\r\n\r\n');

function encode(host: string, request: OpenLoopRequest): Buffer {
  const body = request.body === undefined ? '' : JSON.stringify(request.body);
  const headers = [
    `${request.method} ${request.path} HTTP/1.1`,
    `host: ${host}`,
    ...(body
      ? ['content-type: application/json', `content-length: ${Buffer.byteLength(body)}`]
      : []),
    '',
    '',
  ].join('\r\n');
  return Buffer.from(headers + body);
}

/** The status and the length of the first complete answer in `data`, or null if incomplete. */
function parseAnswer(data: Buffer): { status: number; end: number; bodyStart: number } | null {
  const headerEnd = data.indexOf(HEADER_END);
  if (headerEnd < 0) return null;
  const head = data.toString('latin1', 0, headerEnd);
  const status = Number(head.slice(9, 12));
  const match = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  const bodyStart = headerEnd + HEADER_END.length;
  const end = bodyStart + (match ? Number(match[1]) : 0);
  return data.length >= end ? { status, end, bodyStart } : null;
}

/**
 * Sends `requests` to `origin` at `rate` per second over `connections` sockets. A request due
 * while every socket is busy waits for the first free one (its wait counts in its latency).
 */
export async function fireOpenLoop(
  origin: string,
  requests: OpenLoopRequest[],
  rate: number,
  options: { connections?: number; keepBodies?: boolean } = {},
): Promise<OpenLoopResult> {
  const url = new URL(origin);
  const encoded = requests.map((request) => encode(url.host, request));
  const count = requests.length;
  const latencies = new Float64Array(count).fill(-1);
  const statuses = new Uint16Array(count);
  const bodies: string[] = [];
  const planned = new Float64Array(count);
  const free: Connection[] = [];
  const waiting: number[] = [];
  let answered = 0;
  let alive = 0;
  let lastAnswerAt = 0;
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));

  const settle = (index: number, status: number) => {
    const now = performance.now();
    latencies[index] = now - planned[index];
    statuses[index] = status;
    lastAnswerAt = now;
    answered += 1;
    if (answered === count) finish();
  };
  const dispatch = (connection: Connection, index: number) => {
    connection.inFlight = index;
    connection.socket.write(encoded[index]);
  };
  const unanswered = (index: number) => {
    latencies[index] = -1;
    answered += 1;
    if (answered === count) finish();
  };
  const release = (connection: Connection) => {
    connection.inFlight = -1;
    const next = waiting.shift();
    if (next === undefined) free.push(connection);
    else dispatch(connection, next);
  };

  const sockets = await Promise.all(
    Array.from(
      { length: options.connections ?? 64 },
      () =>
        new Promise<Connection>((resolve, reject) => {
          const socket = connect(Number(url.port), url.hostname, () => resolve(connection));
          const connection: Connection = { socket, inFlight: -1, buffered: Buffer.alloc(0) };
          socket.setNoDelay(true);
          socket.once('error', reject);
          socket.on('data', (chunk: Buffer) => {
            connection.buffered =
              connection.buffered.length === 0
                ? chunk
                : Buffer.concat([connection.buffered, chunk]);
            const answer = parseAnswer(connection.buffered);
            if (!answer || connection.inFlight < 0) return;
            const index = connection.inFlight;
            if (options.keepBodies) {
              bodies[index] = connection.buffered.toString('utf8', answer.bodyStart, answer.end);
            }
            connection.buffered = connection.buffered.subarray(answer.end);
            settle(index, answer.status);
            release(connection);
          });
          socket.on('close', () => {
            // A socket the server closed: its request has no answer, and it serves no more.
            alive -= 1;
            const index = connection.inFlight;
            connection.inFlight = -2;
            const at = free.indexOf(connection);
            if (at >= 0) free.splice(at, 1);
            if (index >= 0) unanswered(index);
            if (alive === 0) waiting.splice(0).forEach(unanswered);
          });
        }),
    ),
  );
  free.push(...sockets);
  alive = sockets.length;

  const started = performance.now();
  let next = 0;
  let lastSentAt = Date.now();
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (next < count && started + (next * 1000) / rate <= now) {
        planned[next] = started + (next * 1000) / rate;
        const connection = free.pop();
        if (connection) dispatch(connection, next);
        else if (alive > 0) waiting.push(next);
        else unanswered(next);
        next += 1;
      }
      if (next >= count) {
        lastSentAt = Date.now();
        resolve();
        return;
      }
      const wait = started + (next * 1000) / rate - performance.now();
      setTimeout(tick, Math.max(0, wait));
    };
    tick();
  });
  if (count > 0) await finished;
  for (const connection of sockets) connection.socket.destroy();
  return {
    latencies,
    statuses,
    bodies,
    elapsedSeconds: ((lastAnswerAt || performance.now()) - started) / 1000,
    lastSentAt,
  };
}

/** The q-quantile (0..1) of the answered latencies. */
export function quantile(latencies: Float64Array, q: number): number {
  const answered = latencies.filter((latency) => latency >= 0).sort();
  if (answered.length === 0) return NaN;
  return answered[Math.min(answered.length - 1, Math.floor(q * answered.length))];
}
