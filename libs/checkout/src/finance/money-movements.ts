import { MovementType, PaymentColumn } from './payment-columns';

export interface MovementFilters {
  currency?: string;
  type?: MovementType;
  status?: string;
  account?: string;
}

const SETTLED_REFUND = `status IN ('accepted', 'reversed')`;

/** The order's columns every movement carries, from the order row aliased `alias`. */
const orderColumns = (alias: string) =>
  `${alias}.merchant_reference, ${alias}.payment_method, ${alias}.payment_account,
         ${alias}.customer_email, COALESCE(${alias}.customer_phone, ${alias}.msisdn) AS customer_phone,
         ${alias}.description, ${alias}.payment_link_id AS payment_link,
         ${alias}.gateway_account AS account`;

/**
 * Every money movement in [$1, $2), one row each with its order's columns, through the date
 * indexes of migrations/1795800000000-MoneyMovementIndexes.ts:
 * - a payment when it was paid: the order's current attempt, and any earlier attempt that paid
 *   too (a double payment);
 * - a refund when the gateway accepted it, or, where its acceptance was never seen (a timeout),
 *   when the reversal showed it moved money; a double payment's refund when it was accepted;
 * - a reversal when the gateway reported the payment reversed without a refund of ours behind it
 *   (a chargeback); a refund's own reversal is that refund, not a second movement.
 * Refunds and reversals are negative. An earlier attempt's reversal carries no date and is not
 * listed. Run in a FinanceSnapshot, whose TimeZone makes `occurred_at::date` the local day.
 */
const MOVEMENTS = `
  SELECT o.paid_at AS occurred_at, 'payment' AS type, o.status::text AS status,
         o.order_tracking_id AS order_tracking_id, o.attempt_number AS attempt,
         o.confirmation_code AS confirmation_code, COALESCE(o.paid_currency, o.currency) AS currency,
         COALESCE(o.paid_amount, o.amount) AS amount, NULL::text AS refund_reason,
         NULL::varchar AS original_reference, o.id AS movement_id, ${orderColumns('o')}
    FROM orders o
   WHERE o.paid_at >= $1 AND o.paid_at < $2
  UNION ALL
  SELECT a.paid_at, 'payment', a.status::text, a.order_tracking_id, a.number, a.confirmation_code,
         ao.currency, a.paid_amount, NULL, NULL, a.id, ${orderColumns('ao')}
    FROM payment_attempts a JOIN orders ao ON ao.id = a.order_id
   WHERE a.paid_at >= $1 AND a.paid_at < $2
  UNION ALL
  SELECT COALESCE(r.accepted_at, r.reversed_at), 'refund', r.status::text, ro.order_tracking_id,
         ro.attempt_number, NULL, r.currency, -r.amount, r.reason, r.confirmation_code, r.id,
         ${orderColumns('ro')}
    FROM refunds r JOIN orders ro ON ro.id = r.order_id
   WHERE r.${SETTLED_REFUND}
     AND COALESCE(r.accepted_at, r.reversed_at) >= $1 AND COALESCE(r.accepted_at, r.reversed_at) < $2
  UNION ALL
  SELECT d.refund_requested_at, 'refund', 'accepted', d.order_tracking_id, d.number, NULL,
         dor.currency, -d.paid_amount, 'double payment', d.confirmation_code, d.id,
         ${orderColumns('dor')}
    FROM payment_attempts d JOIN orders dor ON dor.id = d.order_id
   WHERE d.refund_status = 'accepted'
     AND d.refund_requested_at >= $1 AND d.refund_requested_at < $2
  UNION ALL
  SELECT v.reversed_at, 'reversal', 'reversed', v.order_tracking_id, v.attempt_number, NULL,
         COALESCE(v.paid_currency, v.currency), -COALESCE(v.paid_amount, v.amount), NULL,
         v.confirmation_code, v.id, ${orderColumns('v')}
    FROM orders v
   WHERE v.reversed_at >= $1 AND v.reversed_at < $2
     AND NOT EXISTS (SELECT 1 FROM refunds vr WHERE vr.order_id = v.id AND vr.${SETTLED_REFUND})`;

/**
 * The movements of [$1, $2) filtered by $3 (currency), $4 (type), $5 (status) and $6 (merchant
 * account), each null for any. The one place the movement query lives: the export streams it and
 * the daily report sums it.
 */
export const MOVEMENTS_WITH_ORDERS = `
  SELECT m.* FROM (${MOVEMENTS}) m
   WHERE ($3::varchar IS NULL OR m.currency = $3)
     AND ($4::text IS NULL OR m.type = $4)
     AND ($5::text IS NULL OR m.status = $5)
     AND ($6::varchar IS NULL OR m.account = $6)`;

/**
 * The orders that failed or were cancelled in [$1, $2), filtered as MOVEMENTS_WITH_ORDERS by $3
 * (currency) and $6 (merchant account): a row per order with its kind ('failed' or 'cancelled'),
 * when it ended and why (a failure's reason, 'unknown' when none; '' for a cancellation). The one
 * place they are read: the daily report counts them per day, the activity summer per bucket.
 */
export const ENDED_ORDERS = `
  SELECT 'failed' AS kind, f.failed_at AS ended_at, f.currency, f.payment_method,
         COALESCE(f.failure_reason, 'unknown') AS reason
    FROM orders f
   WHERE f.failed_at >= $1 AND f.failed_at < $2 AND ($3::varchar IS NULL OR f.currency = $3)
     AND ($6::varchar IS NULL OR f.gateway_account = $6)
  UNION ALL
  SELECT 'cancelled', c.cancelled_at, c.currency, c.payment_method, ''
    FROM orders c
   WHERE c.cancelled_at >= $1 AND c.cancelled_at < $2 AND ($3::varchar IS NULL OR c.currency = $3)
     AND ($6::varchar IS NULL OR c.gateway_account = $6)`;

/**
 * A text cell a spreadsheet would run as a formula (=, +, -, @, or a tab or carriage return
 * first) gets an apostrophe in front (CSV injection). Amounts and attempt numbers are ours and
 * numeric, so a refund's "-100.00" stays a number. (ascii() reads the first character without
 * copying it: this runs for every cell of a million-row file.)
 */
export const inert = (expression: string) =>
  `CASE WHEN ascii(${expression}) IN (61, 43, 45, 64, 9, 13) THEN '''' || ${expression} ELSE ${expression} END`;

/**
 * A card or phone as the export shows it: maskAccount's rule (orders/order-view.ts) in SQL, so
 * that PostgreSQL writes the file. A value masked already (holding * or x, as the gateway sends
 * cards) stays; any other of six characters or more shows only its last three.
 */
export const masked = (expression: string) =>
  `CASE WHEN strpos(${expression}, '*') + strpos(${expression}, 'x') + strpos(${expression}, 'X') > 0
              OR length(${expression}) < 6 THEN ${expression}
        ELSE repeat('*', length(${expression}) - 3) || right(${expression}, 3) END`;

/** Each export column's cell, over a row `x` of MOVEMENTS_WITH_ORDERS. */
const CELLS: Record<PaymentColumn, string> = {
  occurred_at_utc: `to_char(x.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  occurred_at_local: `to_char(x.occurred_at, 'YYYY-MM-DD"T"HH24:MI:SS.MSTZH:TZM')`,
  type: 'x.type',
  status: 'x.status',
  merchant_reference: inert('x.merchant_reference'),
  order_tracking_id: inert('x.order_tracking_id'),
  attempt: 'x.attempt',
  confirmation_code: inert('x.confirmation_code'),
  currency: inert('x.currency'),
  amount: 'x.amount::text',
  payment_method: inert('x.payment_method'),
  payment_account: inert(masked('x.payment_account')),
  customer_email: inert('x.customer_email'),
  customer_phone: inert(masked('x.customer_phone')),
  refund_reason: inert('x.refund_reason'),
  original_reference: inert('x.original_reference'),
  description: inert('x.description'),
  payment_link: 'x.payment_link::text',
  account: 'x.account',
};

/** The export's rows with `columns`, oldest first (ties by type, then id). */
export function exportRows(columns: readonly PaymentColumn[]): string {
  return `
  SELECT ${columns.map((column) => `${CELLS[column]} AS ${column}`).join(',\n         ')}
    FROM (${MOVEMENTS_WITH_ORDERS}) x
   ORDER BY x.occurred_at, x.type, x.movement_id`;
}

/** $1…$6 of MOVEMENTS_WITH_ORDERS: the bounds to the microsecond, then the filters. */
export function movementParameters(
  bounds: { fromText: string; toText: string },
  filters: MovementFilters,
): unknown[] {
  return [
    bounds.fromText,
    bounds.toText,
    filters.currency ?? null,
    filters.type ?? null,
    filters.status ?? null,
    filters.account ?? null,
  ];
}
