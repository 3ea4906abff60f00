import { OutboxEventEntity, WebhookDeliveryEntity } from '@app/persistence';

/**
 * Where a merchant event stands, derived from its outbox row:
 * pending (not yet on the queue), queued (no attempt yet), retrying (last attempt failed, more to
 * come), delivered (a 2xx came back), skipped (no ORDER_WEBHOOK_URL when it was due: kept, and
 * redeliverable once one is set), failed (every attempt used: redeliverable).
 */
export type DeliveryState = 'pending' | 'queued' | 'retrying' | 'delivered' | 'skipped' | 'failed';

export const SKIPPED_NO_URL = 'skipped: ORDER_WEBHOOK_URL is not configured';
export const GAVE_UP_PREFIX = 'gave up: ';

export function deliveryState(event: OutboxEventEntity): DeliveryState {
  if (event.deliveredAt) return 'delivered';
  if (event.lastError?.startsWith('skipped: ')) return 'skipped';
  if (event.lastError?.startsWith(GAVE_UP_PREFIX)) return 'failed';
  if (!event.relayedAt) return 'pending';
  return event.attempts > 0 ? 'retrying' : 'queued';
}

export interface MerchantEventView {
  id: string;
  type: string;
  order_id: string | null;
  order_reference: string | null;
  delivery_state: DeliveryState;
  attempts: number;
  last_error: string | null;
  created_at: string;
  relayed_at: string | null;
  delivered_at: string | null;
  data: Record<string, unknown>;
}

function orderReference(payload: Record<string, unknown>): string | null {
  const order = payload.order as { reference?: unknown } | undefined;
  return typeof order?.reference === 'string' ? order.reference : null;
}

export function toMerchantEventView(event: OutboxEventEntity): MerchantEventView {
  return {
    id: event.id,
    type: event.type,
    order_id: event.orderId,
    order_reference: orderReference(event.payload),
    delivery_state: deliveryState(event),
    attempts: event.attempts,
    last_error: event.lastError,
    created_at: event.createdAt.toISOString(),
    relayed_at: event.relayedAt?.toISOString() ?? null,
    delivered_at: event.deliveredAt?.toISOString() ?? null,
    data: event.payload,
  };
}

export interface WebhookDeliveryView {
  id: string;
  attempt: number;
  url: string;
  response_status: number | null;
  error: string | null;
  duration_ms: number;
  created_at: string;
}

export function toWebhookDeliveryView(delivery: WebhookDeliveryEntity): WebhookDeliveryView {
  return {
    id: delivery.id,
    attempt: delivery.attempt,
    url: delivery.url,
    response_status: delivery.responseStatus,
    error: delivery.error,
    duration_ms: delivery.durationMs,
    created_at: delivery.createdAt.toISOString(),
  };
}
