import { cutText } from '@app/domain';
import { WebhookEndpointEntity } from '@app/persistence';
import { URL_MAX_LENGTH } from '../http/documented-schemas';

/**
 * The URL as logged and shown to admins: no credentials, no query string (it may carry a token).
 * At most URL_MAX_LENGTH characters: percent-encoding may lengthen what was typed, and the shown
 * form (an attempt's url, a message's endpoint_url) is cut there.
 */
export function displayUrlOf(url: string): string {
  try {
    const parsed = new URL(url);
    return cutText(`${parsed.origin}${parsed.pathname}`, URL_MAX_LENGTH);
  } catch {
    return '(invalid url)';
  }
}

/** An endpoint as admins see it: never its secret (shown once, on creation and rotation). */
export interface WebhookEndpointView {
  id: string;
  url: string;
  description: string;
  /** null: every event type. */
  event_types: string[] | null;
  state: 'enabled' | 'disabled';
  disabled_reason: string | null;
  disabled_at: string | null;
  failing_since: string | null;
  /** admin (made through the API) or environment (ORDER_WEBHOOK_URL). */
  source: WebhookEndpointEntity['source'];
  /** Until then, deliveries are signed with the previous secret too. */
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export function toEndpointView(
  endpoint: WebhookEndpointEntity,
  now = new Date(),
): WebhookEndpointView {
  const overlap = endpoint.previousSecretExpiresAt;
  return {
    id: endpoint.id,
    url: endpoint.source === 'environment' ? displayUrlOf(endpoint.url) : endpoint.url,
    description: endpoint.description,
    event_types: endpoint.eventTypes,
    state: endpoint.disabledAt ? 'disabled' : 'enabled',
    disabled_reason: endpoint.disabledReason,
    disabled_at: endpoint.disabledAt?.toISOString() ?? null,
    failing_since: endpoint.failingSince?.toISOString() ?? null,
    source: endpoint.source,
    previous_secret_expires_at: overlap && overlap > now ? overlap.toISOString() : null,
    created_at: endpoint.createdAt.toISOString(),
    updated_at: endpoint.updatedAt.toISOString(),
  };
}
