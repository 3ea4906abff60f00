import { createHmac } from 'node:crypto';

/** Headers on every merchant webhook POST. */
export const WEBHOOK_HEADERS = {
  eventId: 'pesapal-checkout-event-id',
  eventType: 'pesapal-checkout-event-type',
  timestamp: 'pesapal-checkout-timestamp',
  signature: 'pesapal-checkout-signature',
} as const;

/** The body the shop receives: the same bytes on every attempt for one event. */
export interface MerchantWebhookBody {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

export function webhookBody(event: {
  id: string;
  type: string;
  createdAt: Date;
  payload: Record<string, unknown>;
}): string {
  const body: MerchantWebhookBody = {
    id: event.id,
    type: event.type,
    created_at: event.createdAt.toISOString(),
    data: event.payload,
  };
  return JSON.stringify(body);
}

/**
 * `t=<unix seconds>,v1=<hex>[,v1=<hex>...]`: one HMAC-SHA256 of `${t}.${body}` per active secret,
 * so that a shop holding either the old or the new secret verifies during a rotation. The
 * timestamp is signed too, so a captured request cannot be replayed later under a fresh one.
 */
export function signatureHeader(body: string, timestamp: number, secrets: string[]): string {
  const signed = `${timestamp}.${body}`;
  const signatures = secrets.map(
    (secret) => `v1=${createHmac('sha256', secret).update(signed).digest('hex')}`,
  );
  return [`t=${timestamp}`, ...signatures].join(',');
}
