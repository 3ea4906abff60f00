/*
 * Whether a webhook endpoint takes a merchant event, as SQL. The journal writes an event that no
 * endpoint takes already skipped (handedOverAtWrite); merchant-events' fan-out hands the others
 * out by the same predicate. It lives beside the journal, below the feature that delivers.
 */

export const SKIPPED_PREFIX = 'skipped: no enabled webhook endpoint subscribes to ';

/** SQL: the endpoint row `endpoint` takes events of `type` (an SQL expression): enabled, subscribed. */
export const endpointTakes = (endpoint: string, type: string): string =>
  `${endpoint}.disabled_at IS NULL AND (${endpoint}.event_types IS NULL OR ${type} = ANY (${endpoint}.event_types))`;

/**
 * SQL for writing an outbox row: a LATERAL join (`skip.skipped`) and the row's relayed_at and
 * last_error. An event no enabled endpoint subscribes to is skipped as it is written (the
 * fan-out would only mark it so: a shop without webhooks pays no second write per event); any
 * other waits for the fan-out. Like the fan-out, it hands an event to the endpoints that exist
 * when it is decided: here, when the event is written.
 */
export function handedOverAtWrite(type: string): {
  join: string;
  relayedAt: string;
  lastError: string;
} {
  return {
    join: `CROSS JOIN LATERAL (SELECT NOT EXISTS (SELECT 1 FROM webhook_endpoints ep
                                                WHERE ${endpointTakes('ep', type)}) AS skipped) skip`,
    relayedAt: 'CASE WHEN skip.skipped THEN now() END',
    lastError: `CASE WHEN skip.skipped THEN '${SKIPPED_PREFIX}' || ${type} END`,
  };
}
