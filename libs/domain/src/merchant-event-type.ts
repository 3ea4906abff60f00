/**
 * Every merchant event the shop's webhook endpoints can receive, with what it means. Endpoints
 * filter on these names; they are stable (a shop branches on them).
 */
export const MERCHANT_EVENT_CATALOGUE = {
  'order.completed': 'the order was paid (verified with the gateway)',
  'order.failed': 'the payment attempt failed or was declined; the customer may try again',
  'order.attempt_cancelled':
    'the customer cancelled the payment attempt on the payment page; the order stays open and the customer may try again',
  'order.attempt_started':
    'the customer tried again: a new payment attempt started (`order.attempt`)',
  'order.cancelled': 'the order was cancelled before it was paid',
  'order.reversed': 'a completed payment was reversed by the gateway (a chargeback)',
  'order.expired': 'no payment came before the order expired',
  'order.review_required': 'the order needs a person to look at it; `reason` says why',
  'refund.accepted': 'the gateway accepted a refund request',
  'refund.rejected': 'the gateway rejected a refund request',
  'refund.reversed': 'an accepted refund was reversed',
  'subscription.charged': 'a recurring charge of a subscription order was paid',
  'payment_link.completed':
    'the last payment a payment link takes was paid (`payment_link` names it); its page takes no more',
  'webhook_endpoint.disabled':
    'one of the shop’s webhook endpoints was disabled; `reason` says why',
  'webhook.test': 'a test event an admin sent to one endpoint',
} as const;

export type MerchantEventType = keyof typeof MERCHANT_EVENT_CATALOGUE;

export const MERCHANT_EVENT_TYPES = Object.keys(MERCHANT_EVENT_CATALOGUE) as MerchantEventType[];

/** Types an endpoint can subscribe to: a test event is sent to the endpoint it was asked for. */
export const SUBSCRIBABLE_EVENT_TYPES = MERCHANT_EVENT_TYPES.filter(
  (type) => type !== 'webhook.test',
);
