import { endpointEventInsert } from '../orders/order-journal';

/**
 * Disables an endpoint that is still enabled and, when a reason comes from delivery (a 410, days
 * of failures), announces it as a `webhook_endpoint.disabled` merchant event in the same
 * statement, so the shop's other endpoints hear of it. Answers the endpoint's id if it changed.
 */
export function disableEndpointStatement(
  endpointId: string,
  reason: string,
  shownUrl: string,
  announce = true,
): [string, unknown[]] {
  return [
    `WITH disabled AS (
       UPDATE webhook_endpoints SET disabled_at = now(), disabled_reason = left($2, 200)
        WHERE id = $1 AND disabled_at IS NULL
        RETURNING id, description),
     announced AS (${endpointEventInsert({
       type: 'webhook_endpoint.disabled',
       payload: `jsonb_build_object('endpoint', jsonb_build_object(
                'id', d.id, 'url', $3::text, 'description', d.description), 'reason', $2::text)`,
       from: 'disabled d',
       where: '$4::boolean',
     })})
     SELECT id FROM disabled`,
    [endpointId, reason, shownUrl, announce],
  ];
}

/**
 * Hands an event to an endpoint again, as a conflict clause of an INSERT into webhook_messages:
 * fresh retries, the same event id and body.
 */
export const REQUEUE_MESSAGE = `
  ON CONFLICT (event_id, endpoint_id) DO UPDATE
     SET state = 'pending', attempts = 0, next_attempt_at = now(), claimed_until = NULL,
         last_error = NULL, delivered_at = NULL`;
