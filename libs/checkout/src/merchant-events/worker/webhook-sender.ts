import { request as httpRequest, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { EXCERPT_BYTES, HTTP_STATUS_MAX, HTTP_STATUS_MIN } from '../delivery-limits';
import { addressProblem, guardedLookup, literalAddress } from '../endpoint-address';
import { signatureHeader, WEBHOOK_HEADERS } from '../webhook-signature';

export interface WebhookAttempt {
  /** null when no answer came. */
  status: number | null;
  retryAfter: string | null;
  /** The start of the answer's body, for the admin. */
  excerpt: string | null;
  /** Why it failed, in words (null when a 2xx came). */
  error: string | null;
  durationMs: number;
}

export interface WebhookRequest {
  url: string;
  eventId: string;
  body: string;
  secrets: readonly string[];
  timeoutMs: number;
  allowPrivate: boolean;
}

function readExcerpt(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      if (size < EXCERPT_BYTES) chunks.push(chunk);
      size += chunk.length;
    });
    response.on('end', () =>
      resolve(Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8')),
    );
    response.on('error', () =>
      resolve(Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8')),
    );
  });
}

/**
 * One signed POST (Standard Webhooks). Redirects are not followed (a moved endpoint must be
 * reconfigured, not guessed); the whole exchange, body included, must end within the timeout.
 */
export function postWebhook(request: WebhookRequest): Promise<WebhookAttempt> {
  const started = process.hrtime.bigint();
  const elapsed = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
  const failed = (error: string): WebhookAttempt => ({
    status: null,
    retryAfter: null,
    excerpt: null,
    error,
    durationMs: elapsed(),
  });

  const literal = literalAddress(request.url);
  const literalProblem = literal && !request.allowPrivate ? addressProblem(literal) : null;
  if (literalProblem) return Promise.resolve(failed(`refused: ${literalProblem}`));

  return new Promise((resolve) => {
    let settled = false;
    const settle = (attempt: WebhookAttempt) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(attempt);
    };
    const timestamp = Math.floor(Date.now() / 1000);
    const url = new URL(request.url);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const outgoing = send(url, {
      method: 'POST',
      ...(request.allowPrivate ? {} : { lookup: guardedLookup }),
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(request.body),
        'user-agent': 'pesapal-checkout-webhooks/2',
        [WEBHOOK_HEADERS.id]: request.eventId,
        [WEBHOOK_HEADERS.timestamp]: String(timestamp),
        [WEBHOOK_HEADERS.signature]: signatureHeader(
          request.eventId,
          timestamp,
          request.body,
          request.secrets,
        ),
      },
    });
    const timer = setTimeout(() => {
      outgoing.destroy();
      settle(failed(`timed out after ${request.timeoutMs} ms`));
    }, request.timeoutMs);
    outgoing.on('response', (response) => {
      void readExcerpt(response).then((text) => {
        const code = response.statusCode ?? 0;
        // A status HTTP does not define (e.g. 799) is recorded as no answer: it fails alike.
        const status = code >= HTTP_STATUS_MIN && code <= HTTP_STATUS_MAX ? code : null;
        const ok = status !== null && status >= 200 && status < 300;
        // PostgreSQL text cannot hold NUL: a receiver's odd answer must not stop the record.
        const excerpt = text.replaceAll('\u0000', '').trim() || null;
        const retryAfter = response.headers['retry-after'];
        const answered = status === null ? `invalid HTTP status ${code}` : `HTTP ${status}`;
        settle({
          status,
          retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
          excerpt,
          error: ok ? null : `${answered}${excerpt ? `: ${excerpt.slice(0, 200)}` : ''}`,
          durationMs: elapsed(),
        });
      });
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      settle(
        failed(
          error.code && !error.message.includes(error.code)
            ? `${error.message} (${error.code})`
            : error.message,
        ),
      );
    });
    outgoing.end(request.body);
  });
}
