/**
 * What one webhook attempt records, bounded (webhook_deliveries.error and response_excerpt,
 * webhook_messages.last_error and outbox_events.last_error are text): the worker keeps within
 * these where it records an attempt (worker/webhook-sender.ts, worker/webhook-dispatcher.service.ts),
 * and the admin answers document them.
 */

/** The most of an answer's body kept as its excerpt: 500 bytes, so at most 500 characters. */
export const EXCERPT_BYTES = 500;
/** The longest error an attempt records: the dispatcher cuts a longer one where it records it. */
export const WEBHOOK_ERROR_MAX_LENGTH = 500;
/** The statuses HTTP defines (RFC 9110); Node passes any three digits on, which are no answer. */
export const HTTP_STATUS_MIN = 100;
export const HTTP_STATUS_MAX = 599;

/**
 * Endpoints admins may add: a shop's few systems, not a fan-out service. With the one
 * ORDER_WEBHOOK_URL may add, it bounds every list of endpoints (an event's messages and its
 * redelivery included: an endpoint's messages go with it).
 */
export const WEBHOOK_ENDPOINTS_LIMIT = 100;
export const WEBHOOK_ENDPOINTS_LISTED_MAX = WEBHOOK_ENDPOINTS_LIMIT + 1;
/** An event's delivery attempts shown at most: the latest (a redelivered event keeps adding). */
export const DELIVERIES_SHOWN = 200;
