import { counter, histogram } from './metric';

/** Latency buckets for our own requests (seconds): a healthy acknowledgement is a few ms. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Notification lag buckets (seconds): seconds when healthy, minutes to hours when stuck. */
const LAG_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600];
/** Items sharing one statement: 1 when idle, more as the load rises. */
const SHARED_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128];

/**
 * Every counter and histogram the service's own code moves. Label values are small closed sets
 * (route templates, kinds, outcomes): never an order id, a reference or a secret. (The gateway
 * client's metrics live in libs/gateway-client; gauges read at scrape time in the worker.)
 */
export const serviceMetrics = {
  httpRequests: counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route template, method and status code.',
    labelNames: ['route', 'method', 'status'] as const,
  }),
  httpDuration: histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route template, method and status code.',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: REQUEST_BUCKETS,
  }),
  ipnAcknowledgements: counter({
    name: 'ipn_acknowledgements_total',
    help: 'Gateway notifications answered, by outcome: stored (200), ignored (200, not one we act on), rejected (4xx), error (5xx: the gateway retries).',
    labelNames: ['outcome'] as const,
  }),
  ipnAckDuration: histogram({
    name: 'ipn_acknowledgement_duration_seconds',
    help: 'Time from a notification arriving to its acknowledgement being sent (every outcome).',
    buckets: REQUEST_BUCKETS,
  }),
  notificationLag: histogram({
    name: 'notification_lag_seconds',
    help: 'Time from a notification being stored to its verification applied (looked up and the outcome written).',
    buckets: LAG_BUCKETS,
  }),
  sharedStatementItems: histogram({
    name: 'shared_statement_items',
    help: 'Items written or read by one shared statement (inbox_store in the api; inbox_read and outcome_write in the worker): its count is statements, its sum items.',
    labelNames: ['statement'] as const,
    buckets: SHARED_BUCKETS,
  }),
  checkouts: counter({
    name: 'checkouts_total',
    help: 'Checkouts started, by kind (hosted, mobile_money) and result (created, replayed, rejected, unknown, refused, error).',
    labelNames: ['kind', 'result'] as const,
  }),
  refunds: counter({
    name: 'refunds_total',
    help: 'Refund requests sent to the gateway, by result (accepted, rejected, unknown).',
    labelNames: ['result'] as const,
  }),
};

// Known label values start at 0, so a series exists before its first event and rate() and
// increase() see that first one.
for (const outcome of ['stored', 'ignored', 'rejected', 'error']) {
  serviceMetrics.ipnAcknowledgements.inc({ outcome }, 0);
}
for (const kind of ['hosted', 'mobile_money']) {
  for (const result of ['created', 'replayed', 'rejected', 'unknown', 'refused', 'error']) {
    serviceMetrics.checkouts.inc({ kind, result }, 0);
  }
}
for (const result of ['accepted', 'rejected', 'unknown']) serviceMetrics.refunds.inc({ result }, 0);
