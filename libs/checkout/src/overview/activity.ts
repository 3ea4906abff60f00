import {
  ENDED_ORDERS,
  MOVEMENTS_WITH_ORDERS,
  movementParameters,
} from '../finance/money-movements';

/**
 * What the overview counts, each summed per hour (or per minute, live) under a key:
 * - checkouts (key: hosted or mobile_money), by when the order was made;
 * - payment, refund and reversal (key: currency; with their signed sums), by when the money
 *   moved: finance's movements, so the overview and the export never disagree;
 * - failed (key: the gateway's reason), cancelled and expired, by when it happened;
 * - refund_requests, by when they were asked for;
 * - notification_lag (key: the lag bin an applied notification fell in; `open` for one without a
 *   verdict yet, or its status for another verdict: failed, ignored), by when it was received;
 * - webhook_attempts (key: delivered or failed), by when they were made.
 */
/** The measures of orders, payments and refunds: what a later change to an order can alter. */
export const ORDER_MEASURES = [
  'checkouts',
  'payment',
  'refund',
  'reversal',
  'failed',
  'cancelled',
  'expired',
  'refund_requests',
] as const;
export type ActivityMeasure =
  (typeof ORDER_MEASURES)[number] | 'notification_lag' | 'webhook_attempts';

/** The upper bounds (ms, excluded) of the notification lag bins; a longer lag is `more`. */
export const LAG_BINS_MS = [250, 500, 1000, 2000, 5000, 10_000, 30_000, 60_000, 300_000] as const;
export const LAG_MORE = 'more';
export const LAG_OPEN = 'open';
/** The keys of notification_lag that are lag bins (the rest: open, failed, ignored). */
export const LAG_BIN_KEYS: readonly string[] = [...LAG_BINS_MS.map(String), LAG_MORE];

const BINS = `ARRAY[${LAG_BINS_MS.join(', ')}]::numeric[]`;
const at = (column: string) => `date_trunc($7, ${column}, 'UTC')`;

/** Orders, movements and refunds of [$1, $2) ($3-$6 finance's filters, null here). */
const ORDER_ACTIVITY = `
  SELECT ${at('o.created_at')} AS bucket, 'checkouts' AS measure, o.kind::text AS key,
         count(*)::int AS count, NULL::numeric AS amount
    FROM orders o WHERE o.created_at >= $1 AND o.created_at < $2 GROUP BY 1, 3
  UNION ALL
  SELECT ${at('m.occurred_at')}, m.type, m.currency, count(*)::int, sum(m.amount)
    FROM (${MOVEMENTS_WITH_ORDERS}) m GROUP BY 1, 2, 3
  UNION ALL
  SELECT ${at('e.ended_at')}, e.kind, e.reason, count(*)::int, NULL
    FROM (${ENDED_ORDERS}) e GROUP BY 1, 2, 3
  UNION ALL
  SELECT ${at('e.expired_at')}, 'expired', '', count(*)::int, NULL
    FROM orders e WHERE e.expired_at >= $1 AND e.expired_at < $2 GROUP BY 1
  UNION ALL
  SELECT ${at('r.created_at')}, 'refund_requests', '', count(*)::int, NULL
    FROM refunds r WHERE r.created_at >= $1 AND r.created_at < $2 GROUP BY 1`;

/**
 * Notifications of [$1, $2): a verdict comes later than the row (the summer sums recent hours
 * again while their rows are kept).
 */
const NOTIFICATION_ACTIVITY = `
  SELECT ${at('n.received_at')}, 'notification_lag',
         CASE WHEN n.processed_at IS NULL THEN '${LAG_OPEN}'
              WHEN n.status <> 'applied' THEN n.status::text
              ELSE COALESCE((${BINS})[width_bucket(
                     extract(epoch FROM n.processed_at - n.received_at) * 1000, ${BINS}) + 1]::text,
                   '${LAG_MORE}') END,
         count(*)::int, NULL
    FROM ipn_notifications n WHERE n.received_at >= $1 AND n.received_at < $2 GROUP BY 1, 3`;

/**
 * Webhook attempts of [$1, $2), each written once with its answer (2xx delivers, as
 * merchant-events' delivery policy judges it).
 */
const WEBHOOK_ACTIVITY = `
  SELECT ${at('d.created_at')}, 'webhook_attempts',
         CASE WHEN d.response_status BETWEEN 200 AND 299 THEN 'delivered' ELSE 'failed' END,
         count(*)::int, NULL
    FROM webhook_deliveries d WHERE d.created_at >= $1 AND d.created_at < $2 GROUP BY 1, 3`;

/** The parts of the activity: each a family of measures read from its own table. */
export type ActivityPart = 'orders' | 'notifications' | 'webhooks';
export const ALL_PARTS: readonly ActivityPart[] = ['orders', 'notifications', 'webhooks'];
const PARTS: Record<ActivityPart, { sql: string; measures: readonly ActivityMeasure[] }> = {
  orders: { sql: ORDER_ACTIVITY, measures: ORDER_MEASURES },
  notifications: { sql: NOTIFICATION_ACTIVITY, measures: ['notification_lag'] },
  webhooks: { sql: WEBHOOK_ACTIVITY, measures: ['webhook_attempts'] },
};

/** The measures the parts sum (what summing them again replaces). */
export function measuresOf(parts: readonly ActivityPart[]): ActivityMeasure[] {
  return parts.flatMap((part) => PARTS[part].measures);
}

/**
 * The activity of [$1, $2) per `$7` ('minute' or 'hour', UTC) as rows (bucket, measure, key,
 * count, amount), each part read through the index on its date: the work is bounded by the
 * activity of the range, never by history. `orders` is always a part (it binds $3-$6).
 */
export function activityOf(parts: readonly ActivityPart[] = ALL_PARTS): string {
  const chosen: ActivityPart[] = ['orders', ...parts.filter((part) => part !== 'orders')];
  return chosen.map((part) => PARTS[part].sql).join('\n  UNION ALL');
}

/** The parameters of activityOf: $1-$2 the range, $3-$6 finance's (unused) filters, $7 the grain. */
export function activityParameters(from: Date, to: Date, grain: 'minute' | 'hour'): unknown[] {
  return [
    ...movementParameters({ fromText: from.toISOString(), toText: to.toISOString() }, {}),
    grain,
  ];
}

/**
 * Hours end up in activity_totals once this much past their end: a row committed a little after
 * the time it carries is still counted. Until then the overview counts them live.
 */
export const SETTLING_MS = 10 * 60_000;

/** The overview reads at most this much live; past it, totals not yet summed are left out. */
export const LIVE_MAX_MS = 3 * 3_600_000;
