import { cutText } from '@app/domain';
import {
  OutboxEventEntity,
  WebhookDeliveryEntity,
  WebhookEndpointEntity,
  WebhookMessageEntity,
} from '@app/persistence';
import { EXCERPT_BYTES, WEBHOOK_ERROR_MAX_LENGTH } from './delivery-limits';
import { displayUrlOf } from './endpoint-view';
import { SKIPPED_PREFIX } from '../orders/outbox-handover';

/**
 * Where a merchant event stands, derived from its outbox row: pending (not yet handed to the
 * endpoints), queued (handed over, no attempt yet), retrying (an attempt failed, more to come),
 * delivered (every endpoint it went to answered 2xx), skipped (no enabled endpoint subscribed
 * when it was handed out: kept, and replayable), failed (an endpoint used every attempt).
 */
export type DeliveryState = 'pending' | 'queued' | 'retrying' | 'delivered' | 'skipped' | 'failed';

export const GAVE_UP_PREFIX = 'gave up: ';
/** outbox_events.type is varchar(48). */
const EVENT_TYPE_MAX_LENGTH = 48;
/**
 * An event's last_error: "skipped: ..." and its type (fan-out), an attempt's error (cut to
 * WEBHOOK_ERROR_MAX_LENGTH where it is recorded), or "gave up: " and that error.
 */
export const EVENT_LAST_ERROR_MAX_LENGTH = Math.max(
  SKIPPED_PREFIX.length + EVENT_TYPE_MAX_LENGTH,
  GAVE_UP_PREFIX.length + WEBHOOK_ERROR_MAX_LENGTH,
);

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
    // Rows written before the cut may hold more; answers stay within the declared bound.
    last_error: cutText(event.lastError, EVENT_LAST_ERROR_MAX_LENGTH),
    created_at: event.createdAt.toISOString(),
    relayed_at: event.relayedAt?.toISOString() ?? null,
    delivered_at: event.deliveredAt?.toISOString() ?? null,
    data: event.payload,
  };
}

/** One event on its way to one endpoint. */
export interface WebhookMessageView {
  endpoint_id: string;
  endpoint_url: string | null;
  state: WebhookMessageEntity['state'];
  attempts: number;
  next_attempt_at: string | null;
  last_error: string | null;
  delivered_at: string | null;
}

export function toWebhookMessageView(
  message: WebhookMessageEntity,
  endpoint: WebhookEndpointEntity | undefined,
): WebhookMessageView {
  return {
    endpoint_id: message.endpointId,
    endpoint_url: endpoint ? displayUrlOf(endpoint.url) : null,
    state: message.state,
    attempts: message.attempts,
    next_attempt_at: message.state === 'pending' ? message.nextAttemptAt.toISOString() : null,
    last_error: cutText(message.lastError, WEBHOOK_ERROR_MAX_LENGTH),
    delivered_at: message.deliveredAt?.toISOString() ?? null,
  };
}

export interface WebhookDeliveryView {
  id: string;
  endpoint_id: string | null;
  attempt: number;
  url: string;
  response_status: number | null;
  error: string | null;
  response_excerpt: string | null;
  duration_ms: number;
  created_at: string;
}

export function toWebhookDeliveryView(delivery: WebhookDeliveryEntity): WebhookDeliveryView {
  return {
    id: delivery.id,
    endpoint_id: delivery.endpointId,
    attempt: delivery.attempt,
    url: delivery.url,
    response_status: delivery.responseStatus,
    error: cutText(delivery.error, WEBHOOK_ERROR_MAX_LENGTH),
    response_excerpt: cutText(delivery.responseExcerpt, EXCERPT_BYTES),
    duration_ms: delivery.durationMs,
    created_at: delivery.createdAt.toISOString(),
  };
}
