import { Webhook } from 'standardwebhooks';

/** A merchant webhook as the shop's endpoint received it. */
export interface ReceivedWebhook {
  /** The raw body, exactly as received (verify before parsing). */
  body: string;
  /** The request's headers (webhook-id, webhook-timestamp, webhook-signature). */
  headers: Record<string, string | string[] | undefined>;
}

export interface VerifiedWebhook<T = unknown> {
  id: string;
  timestamp: Date;
  payload: T;
}

/** Why a webhook was refused: a bad signature, a timestamp too old or too new, or a replay. */
export class WebhookRefused extends Error {
  override readonly name = 'WebhookRefused';

  constructor(
    readonly reason: 'signature' | 'timestamp' | 'replayed' | 'headers' | 'body',
    message: string,
  ) {
    super(message);
  }
}

export interface WebhookVerifierOptions {
  /** The endpoint's secret (`whsec_…`); during a rotation, the new one and the old one. */
  secrets: string | string[];
  /**
   * Ids already accepted are remembered this long to refuse a replay (default and least: 10
   * minutes, the longest a timestamp stays acceptable after the id was first seen).
   */
  replayWindowMs?: number;
}

/** Standard Webhooks' tolerance for a timestamp, either side of now. */
const TOLERANCE_SECONDS = 5 * 60;

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * Verifies merchant webhooks by the Standard Webhooks rules (the standardwebhooks package: HMAC
 * of id, timestamp and body; a timestamp within five minutes), and refuses an id it has already
 * accepted within the replay window. One verifier per endpoint, kept for the process's life.
 */
export class WebhookVerifier {
  private readonly hooks: Webhook[];
  private readonly seen = new Map<string, number>();
  private readonly replayWindowMs: number;

  constructor(options: WebhookVerifierOptions) {
    const secrets = Array.isArray(options.secrets) ? options.secrets : [options.secrets];
    if (secrets.length === 0) throw new Error('a webhook secret is required');
    this.hooks = secrets.map((secret) => new Webhook(secret));
    this.replayWindowMs = Math.max(options.replayWindowMs ?? 0, 2 * TOLERANCE_SECONDS * 1000);
  }

  verify<T = unknown>(received: ReceivedWebhook): VerifiedWebhook<T> {
    const headers = {
      'webhook-id': single(received.headers['webhook-id']) ?? '',
      'webhook-timestamp': single(received.headers['webhook-timestamp']) ?? '',
      'webhook-signature': single(received.headers['webhook-signature']) ?? '',
    };
    if (!headers['webhook-id'] || !headers['webhook-timestamp'] || !headers['webhook-signature']) {
      throw new WebhookRefused(
        'headers',
        'webhook-id, webhook-timestamp and webhook-signature are required',
      );
    }
    // Also checked by the package; checked here first to say which check refused it.
    const seconds = Number(headers['webhook-timestamp']);
    const skew = Math.abs(Date.now() / 1000 - seconds);
    if (!Number.isInteger(seconds) || skew > TOLERANCE_SECONDS) {
      throw new WebhookRefused('timestamp', 'the timestamp is not within five minutes of now');
    }
    let payload: T | undefined;
    for (const hook of this.hooks) {
      try {
        payload = hook.verify(received.body, headers) as T;
        break;
      } catch (error) {
        // Signed, but not JSON: the package parses the body once the signature matched.
        if (error instanceof SyntaxError) throw new WebhookRefused('body', 'the body is not JSON');
        // otherwise the next secret, during a rotation
      }
    }
    if (payload === undefined)
      throw new WebhookRefused('signature', 'the signature does not match');
    this.forgetOld();
    if (this.seen.has(headers['webhook-id'])) {
      throw new WebhookRefused('replayed', `webhook ${headers['webhook-id']} was already accepted`);
    }
    this.seen.set(headers['webhook-id'], Date.now());
    return { id: headers['webhook-id'], timestamp: new Date(seconds * 1000), payload };
  }

  private forgetOld(): void {
    const horizon = Date.now() - this.replayWindowMs;
    for (const [id, at] of this.seen) {
      if (at >= horizon) break; // insertion order is arrival order
      this.seen.delete(id);
    }
  }
}

/**
 * Signs a webhook as the api does, for the shop's own tests: the headers to send with `body`.
 */
export function signWebhook(
  secret: string,
  id: string,
  timestamp: Date,
  body: string,
): { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string } {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, timestamp, body),
  };
}
