import { WEBHOOK_HEADERS, signatureHeader } from '../webhook-signature';

export interface WebhookAttempt {
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
}

export interface WebhookRequest {
  url: string;
  eventId: string;
  eventType: string;
  body: string;
  secrets: string[];
  timeoutMs: number;
}

const RESPONSE_SNIPPET = 300;

/** The URL as logged and shown to admins: no credentials, no query string (it may carry a token). */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(invalid url)';
  }
}

function describeFailure(error: unknown, timeoutMs: number): string {
  // fetch rejects with a DOMException on timeout, which is not always an Error instance.
  const failure = (error ?? {}) as { name?: string; message?: string; cause?: unknown };
  if (failure.name === 'TimeoutError' || failure.name === 'AbortError') {
    return `timed out after ${timeoutMs} ms`;
  }
  const cause = failure.cause as { code?: string; message?: string } | undefined;
  const detail = cause?.code ?? cause?.message;
  const message = failure.message ?? String(error);
  return detail ? `${message}: ${detail}` : message;
}

/**
 * One signed POST. Only a 2xx counts: redirects are not followed (a moved endpoint must be
 * reconfigured, not guessed), and anything else, including a timeout, is a failed attempt.
 */
export async function postWebhook(request: WebhookRequest): Promise<WebhookAttempt> {
  const timestamp = Math.floor(Date.now() / 1000);
  const started = process.hrtime.bigint();
  const elapsed = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
  try {
    const response = await fetch(request.url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(request.timeoutMs),
      headers: {
        'content-type': 'application/json',
        'user-agent': 'pesapal-checkout-webhooks/1',
        [WEBHOOK_HEADERS.eventId]: request.eventId,
        [WEBHOOK_HEADERS.eventType]: request.eventType,
        [WEBHOOK_HEADERS.timestamp]: String(timestamp),
        [WEBHOOK_HEADERS.signature]: signatureHeader(request.body, timestamp, request.secrets),
      },
      body: request.body,
    });
    const text = await response.text().catch(() => '');
    const ok = response.status >= 200 && response.status < 300;
    const snippet = text.slice(0, RESPONSE_SNIPPET).trim();
    return {
      ok,
      status: response.status,
      error: ok ? null : `HTTP ${response.status}${snippet ? `: ${snippet}` : ''}`,
      durationMs: elapsed(),
    };
  } catch (error) {
    return {
      ok: false,
      status: null,
      error: describeFailure(error, request.timeoutMs),
      durationMs: elapsed(),
    };
  }
}
