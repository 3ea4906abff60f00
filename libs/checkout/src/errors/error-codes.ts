/**
 * Every error code a client of the api can receive, with its category (which the HTTP filter
 * maps to a status). Codes are stable: a shop branches on them.
 */
export const ERROR_CODES = {
  // Requests the api refuses before any work.
  validation_failed: 'invalid',
  bad_request: 'invalid',
  unauthenticated: 'unauthenticated',
  forbidden: 'forbidden',
  csrf_token_invalid: 'forbidden',
  self_approval_refused: 'forbidden',
  sign_in_failed: 'invalid',
  // Something named in the request does not exist.
  order_not_found: 'not_found',
  refund_not_found: 'not_found',
  notification_not_found: 'not_found',
  event_not_found: 'not_found',
  job_not_found: 'not_found',
  queue_not_found: 'not_found',
  reconciliation_report_not_found: 'not_found',
  webhook_endpoint_not_found: 'not_found',
  api_key_not_found: 'not_found',
  refund_approval_not_found: 'not_found',
  unmatched_payment_not_found: 'not_found',
  payment_link_not_found: 'not_found',
  // The request conflicts with the state of what it names.
  reference_in_use: 'conflict',
  checkout_outcome_unknown: 'conflict',
  idempotency_request_in_progress: 'conflict',
  order_not_submitted: 'conflict',
  order_not_cancellable: 'conflict',
  order_paid: 'conflict',
  order_closed: 'conflict',
  attempt_still_payable: 'conflict',
  attempts_exhausted: 'conflict',
  cancel_refused: 'conflict',
  order_not_refundable: 'conflict',
  refund_already_requested: 'conflict',
  refund_transition_not_allowed: 'conflict',
  refund_approval_not_pending: 'conflict',
  refund_approval_expired: 'conflict',
  unmatched_payment_settled: 'conflict',
  api_key_revoked: 'conflict',
  job_not_failed: 'conflict',
  webhook_endpoint_managed_by_environment: 'conflict',
  webhook_endpoint_disabled: 'conflict',
  webhook_endpoints_limit_reached: 'conflict',
  payment_link_closed: 'conflict',
  payment_link_taken: 'conflict',
  reference_prefix_in_use: 'conflict',
  // Well-formed, but the payment rules refuse it.
  idempotency_key_reused: 'unprocessable',
  refund_exceeds_payment: 'unprocessable',
  partial_refund_not_allowed: 'unprocessable',
  partial_refund_not_confirmed: 'unprocessable',
  unmatched_payment_mismatch: 'unprocessable',
  // The gateway or our own infrastructure.
  gateway_error: 'gateway_rejected',
  gateway_timeout: 'gateway_timeout',
  queue_unavailable: 'unavailable',
  database_unavailable: 'unavailable',
  internal_error: 'internal',
  // The gateway's notification route (IPN): its acknowledgement shape, with these codes.
  ipn_invalid: 'invalid',
  ipn_body_too_large: 'invalid',
  ipn_unreadable: 'invalid',
  // Answered by the HTTP layer itself (routing, body parsing, rate limits).
  not_found: 'not_found',
  method_not_allowed: 'invalid',
  payload_too_large: 'invalid',
  unsupported_media_type: 'invalid',
  rate_limited: 'unavailable',
  // An instance that is stopping (a rollout): @app/common's createFastifyApp answers it.
  service_stopping: 'unavailable',
} as const satisfies Record<string, CheckoutErrorCategory>;

export type CheckoutErrorCode = keyof typeof ERROR_CODES;

export type CheckoutErrorCategory =
  | 'invalid' // 400
  | 'unauthenticated' // 401
  | 'forbidden' // 403
  | 'not_found' // 404
  | 'conflict' // 409
  | 'unprocessable' // 422
  | 'gateway_rejected' // 502
  | 'gateway_unavailable' // 502
  | 'gateway_timeout' // 504
  | 'unavailable' // 503
  | 'internal'; // 500

/** What can be not found, each with its `<what>_not_found` code. */
export type NotFoundSubject = CheckoutErrorCode extends infer C
  ? C extends `${infer What}_not_found`
    ? What
    : never
  : never;
