import { MovementType } from '../payment-columns';

/** A money movement as the query answers it (dates already formatted by PostgreSQL). */
export interface MovementRow {
  occurred_at_utc: string;
  occurred_at_local: string;
  type: MovementType;
  status: string;
  merchant_reference: string;
  order_tracking_id: string | null;
  attempt: number | null;
  confirmation_code: string | null;
  currency: string;
  amount: string;
  payment_method: string | null;
  payment_account: string | null;
  customer_email: string | null;
  customer_phone: string | null;
  refund_reason: string | null;
  original_reference: string | null;
  description: string;
}

export interface MovementFilters {
  currency?: string;
  type?: MovementType;
  status?: string;
}

const SETTLED_REFUND = `status IN ('accepted', 'reversed')`;

/**
 * Every money movement in [$1, $2), one row each, through the date indexes of
 * migrations/1795800000000-MoneyMovementIndexes.ts:
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
  SELECT o.paid_at AS occurred_at, 'payment' AS type, o.status::text AS status, o.id AS order_id,
         o.order_tracking_id AS tracking_id, o.attempt_number AS attempt,
         o.confirmation_code AS confirmation_code, COALESCE(o.paid_currency, o.currency) AS currency,
         COALESCE(o.paid_amount, o.amount) AS amount, NULL::text AS refund_reason,
         NULL::varchar AS original_reference, o.id AS movement_id
    FROM orders o
   WHERE o.paid_at >= $1 AND o.paid_at < $2
  UNION ALL
  SELECT a.paid_at, 'payment', a.status::text, a.order_id, a.order_tracking_id, a.number,
         a.confirmation_code, ao.currency, a.paid_amount, NULL, NULL, a.id
    FROM payment_attempts a JOIN orders ao ON ao.id = a.order_id
   WHERE a.paid_at >= $1 AND a.paid_at < $2
  UNION ALL
  SELECT COALESCE(r.accepted_at, r.reversed_at), 'refund', r.status::text, r.order_id, NULL, NULL,
         NULL, r.currency, -r.amount, r.reason, r.confirmation_code, r.id
    FROM refunds r
   WHERE r.${SETTLED_REFUND}
     AND COALESCE(r.accepted_at, r.reversed_at) >= $1 AND COALESCE(r.accepted_at, r.reversed_at) < $2
  UNION ALL
  SELECT d.refund_requested_at, 'refund', 'accepted', d.order_id, d.order_tracking_id, d.number,
         NULL, dor.currency, -d.paid_amount, 'double payment', d.confirmation_code, d.id
    FROM payment_attempts d JOIN orders dor ON dor.id = d.order_id
   WHERE d.refund_status = 'accepted'
     AND d.refund_requested_at >= $1 AND d.refund_requested_at < $2
  UNION ALL
  SELECT v.reversed_at, 'reversal', 'reversed', v.id, v.order_tracking_id, v.attempt_number,
         NULL, COALESCE(v.paid_currency, v.currency), -COALESCE(v.paid_amount, v.amount), NULL,
         v.confirmation_code, v.id
    FROM orders v
   WHERE v.reversed_at >= $1 AND v.reversed_at < $2
     AND NOT EXISTS (SELECT 1 FROM refunds vr WHERE vr.order_id = v.id AND vr.${SETTLED_REFUND})`;

/**
 * The movements of [$1, $2) with their orders' columns, filtered by $3 (currency), $4 (type) and
 * $5 (status), each null for any. The one place the movement query lives: the export streams it
 * and the daily report sums it.
 */
export const MOVEMENTS_WITH_ORDERS = `
  SELECT m.occurred_at, m.type, m.status, m.currency, m.amount, m.attempt, m.confirmation_code,
         m.refund_reason, m.original_reference, m.movement_id,
         o.merchant_reference, COALESCE(m.tracking_id, o.order_tracking_id) AS order_tracking_id,
         o.payment_method, o.payment_account, o.customer_email,
         COALESCE(o.customer_phone, o.msisdn) AS customer_phone, o.description
    FROM (${MOVEMENTS}) m
    JOIN orders o ON o.id = m.order_id
   WHERE ($3::varchar IS NULL OR m.currency = $3)
     AND ($4::text IS NULL OR m.type = $4)
     AND ($5::text IS NULL OR m.status = $5)`;

/** The export's rows, oldest first (ties by type, then id), dates printed in UTC and locally. */
export const EXPORT_ROWS = `
  SELECT to_char(x.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS occurred_at_utc,
         to_char(x.occurred_at, 'YYYY-MM-DD"T"HH24:MI:SS.MSTZH:TZM') AS occurred_at_local,
         x.type, x.status, x.merchant_reference, x.order_tracking_id, x.attempt,
         x.confirmation_code, x.currency, x.amount::text AS amount, x.payment_method,
         x.payment_account, x.customer_email, x.customer_phone, x.refund_reason,
         x.original_reference, x.description
    FROM (${MOVEMENTS_WITH_ORDERS}) x
   ORDER BY x.occurred_at, x.type, x.movement_id`;

export function movementParameters(from: Date, to: Date, filters: MovementFilters): unknown[] {
  return [from, to, filters.currency ?? null, filters.type ?? null, filters.status ?? null];
}
