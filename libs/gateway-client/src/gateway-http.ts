import { GatewayOperation, GatewayTimeoutError, GatewayUnavailableError } from './gateway-errors';
import { ExchangeTimeoutError, GatewayTransport, keptAliveTransport } from './kept-alive-transport';
import { parseJsonBody } from './parse-error';

/** What the client reads of a fetch Response (a FetchLike standing in for the transport). */
export interface FetchAnswer {
  status: number;
  text(): Promise<string>;
}

export type FetchLike = (input: string, init: RequestInit) => Promise<FetchAnswer>;

export interface GatewayHttpRequest {
  operation: GatewayOperation;
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string>;
  /** JSON text, written by the caller (amounts must stay exact). */
  body?: string;
  bearer?: string;
}

export interface GatewayHttpAnswer {
  status: number;
  /** Parsed JSON, or undefined for empty, plain-text and HTML bodies. */
  body: unknown;
}

/**
 * One HTTP exchange with the gateway under a timeout. Transport failures become
 * GatewayUnavailableError / GatewayTimeoutError; the body is returned as is for the parsers.
 * The kept-alive transport is the default; a FetchLike (a test's fetch) may stand in for it.
 */
export class GatewayHttp {
  private readonly transport: GatewayTransport;

  constructor(
    baseUrl: string,
    private readonly timeoutMs: number,
    fetchImpl?: FetchLike,
  ) {
    this.transport = fetchImpl
      ? fetchTransport(baseUrl.replace(/\/+$/, ''), fetchImpl)
      : keptAliveTransport(baseUrl);
  }

  async send(request: GatewayHttpRequest): Promise<GatewayHttpAnswer> {
    const query = request.query ? `?${new URLSearchParams(request.query).toString()}` : '';
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (request.body !== undefined) headers['Content-Type'] = 'application/json';
    if (request.bearer !== undefined) headers.Authorization = `Bearer ${request.bearer}`;
    try {
      const answer = await this.transport({
        method: request.method,
        path: `${request.path}${query}`,
        headers,
        body: request.body,
        timeoutMs: this.timeoutMs,
      });
      return { status: answer.status, body: parseJsonBody(answer.text) };
    } catch (cause) {
      const details = {
        operation: request.operation,
        httpStatus: null,
        errorType: null,
        code: null,
        messages: [],
        cause,
      };
      if ((cause as Error).name === 'TimeoutError') {
        throw new GatewayTimeoutError(details, `no answer within ${this.timeoutMs} ms`);
      }
      throw new GatewayUnavailableError(details, `network error: ${(cause as Error).message}`);
    }
  }
}

/** A FetchLike as a transport: the timeout aborts the call through its signal. */
function fetchTransport(baseUrl: string, fetchImpl: FetchLike): GatewayTransport {
  return async ({ method, path, headers, body, timeoutMs }) => {
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new ExchangeTimeoutError('gateway call timed out')),
      timeoutMs,
    );
    try {
      const response = await fetchImpl(`${baseUrl}${path}`, {
        method,
        headers,
        body,
        signal: deadline.signal,
      });
      return { status: response.status, text: await response.text() };
    } catch (cause) {
      // fetch rejects with the abort's reason, or with an AbortError of its own.
      if (deadline.signal.aborted) throw new ExchangeTimeoutError('gateway call timed out');
      throw cause;
    } finally {
      clearTimeout(timer);
    }
  };
}
