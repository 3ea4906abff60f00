import { GatewayOperation, GatewayTimeoutError, GatewayUnavailableError } from './gateway-errors';
import { parseJsonBody } from './parse-error';

/**
 * What the client reads of an answer: a fetch Response has it, and so does the kept-alive
 * transport's lighter one.
 */
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
 * Node's fetch (undici) keeps connections alive between calls.
 */
export class GatewayHttp {
  private readonly baseUrl: string;

  constructor(
    baseUrl: string,
    private readonly timeoutMs: number,
    private readonly fetchImpl: FetchLike,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  async send(request: GatewayHttpRequest): Promise<GatewayHttpAnswer> {
    const url = new URL(`${this.baseUrl}${request.path}`);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      url.searchParams.set(name, value);
    }
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (request.body !== undefined) headers['Content-Type'] = 'application/json';
    if (request.bearer !== undefined) headers.Authorization = `Bearer ${request.bearer}`;
    // A timer cleared when the answer comes: AbortSignal.timeout's timer would stay armed for the
    // whole timeout after every call, thousands at once under load.
    const deadline = new AbortController();
    const signal = deadline.signal;
    const timer = setTimeout(
      () => deadline.abort(new DOMException('gateway call timed out', 'TimeoutError')),
      this.timeoutMs,
    );
    try {
      const response = await this.fetchImpl(url.toString(), {
        method: request.method,
        headers,
        body: request.body,
        signal,
      });
      const text = await response.text();
      return { status: response.status, body: parseJsonBody(text) };
    } catch (cause) {
      const details = {
        operation: request.operation,
        httpStatus: null,
        errorType: null,
        code: null,
        messages: [],
        cause,
      };
      if (signal.aborted || (cause as Error).name === 'TimeoutError') {
        throw new GatewayTimeoutError(details, `no answer within ${this.timeoutMs} ms`);
      }
      throw new GatewayUnavailableError(details, `network error: ${(cause as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }
}
