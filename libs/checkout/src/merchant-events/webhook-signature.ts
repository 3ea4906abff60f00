import { createHmac } from 'node:crypto';
import { webhookSigningKey } from '@app/domain';

/** The Standard Webhooks (v1) headers on every merchant webhook POST. */
export const WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

/** The body the shop receives: the same bytes on every attempt and to every endpoint. */
export interface MerchantWebhookBody {
  type: string;
  /** When the event happened (ISO 8601, UTC), not when this attempt was made. */
  timestamp: string;
  data: Record<string, unknown>;
}

export function webhookBody(event: {
  type: string;
  createdAt: Date;
  payload: Record<string, unknown>;
}): string {
  const body: MerchantWebhookBody = {
    type: event.type,
    timestamp: event.createdAt.toISOString(),
    data: event.payload,
  };
  return JSON.stringify(body);
}

/**
 * `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, one per secret, space-separated: during
 * a rotation the shop verifies with either its old or its new secret. The id and the timestamp
 * are signed, so a captured request can be replayed neither later nor as another event.
 */
export function signatureHeader(
  eventId: string,
  timestamp: number,
  body: string,
  secrets: readonly string[],
): string {
  const signed = `${eventId}.${timestamp}.${body}`;
  return secrets
    .map((secret) => {
      const checked = webhookSigningKey(secret);
      // Secrets are checked where they enter (config, admin API); one that is not is a bug.
      if ('problem' in checked) throw new Error(`webhook secret ${checked.problem}`);
      return `v1,${createHmac('sha256', checked.key).update(signed).digest('base64')}`;
    })
    .join(' ');
}
