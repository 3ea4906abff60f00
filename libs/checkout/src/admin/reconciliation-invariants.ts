import { DataSource } from 'typeorm';

/**
 * Row limit per invariant query: a report lists examples, not a dump of a broken table.
 * change_without_outbox joins two of them (status changes, refunds): up to twice as many.
 */
export const INVARIANT_EXAMPLES = 100;

export interface InvariantViolations {
  /** More than one status_changed → completed event for one order. */
  completed_twice: { order_id: string; reference: string; events: number }[];
  /** A refund (not rejected) larger than the payment, or in another currency. */
  refund_exceeds_payment: {
    refund_id: string;
    reference: string;
    refund_amount: string;
    refund_currency: string;
    paid_amount: string | null;
    paid_currency: string | null;
  }[];
  /** An order in a state no status_changed event leads to. */
  state_without_event: { order_id: string; reference: string; status: string }[];
  /** A status change or refund outcome whose merchant event was never written to the outbox. */
  change_without_outbox: { order_id: string; reference: string; expected_event: string }[];
}

const ANNOUNCED_STATUSES = ['completed', 'failed', 'cancelled', 'reversed', 'expired'];
const ANNOUNCED_REFUNDS = ['accepted', 'rejected', 'reversed'];

/**
 * The orders a run looks at: created or changed since `since` (each side on its own index), and
 * the instant before which merchant events may have been removed by retention, so an event
 * removed on purpose is not reported as never written.
 */
export interface InvariantWindow {
  since: Date;
  outboxSince: Date;
}

const IN_WINDOW = `o.id IN (SELECT w.id FROM orders w WHERE w.created_at >= $1
                            UNION SELECT w.id FROM orders w WHERE w.updated_at >= $1)`;

/** Read-only queries over the window's orders: they report, never repair. */
export async function findInvariantViolations(
  dataSource: DataSource,
  window: InvariantWindow,
): Promise<InvariantViolations> {
  const [
    completedTwice,
    refundExceeds,
    stateWithoutEvent,
    orderWithoutOutbox,
    refundWithoutOutbox,
  ] = await Promise.all([
    dataSource.query(
      `SELECT e.order_id, o.merchant_reference AS reference, COUNT(*)::int AS events
           FROM order_events e JOIN orders o ON o.id = e.order_id
          WHERE ${IN_WINDOW} AND e.type = 'status_changed' AND e.to_status = 'completed'
          GROUP BY e.order_id, o.merchant_reference HAVING COUNT(*) > 1
          LIMIT ${INVARIANT_EXAMPLES}`,
      [window.since],
    ),
    dataSource.query(
      `SELECT r.id AS refund_id, o.merchant_reference AS reference,
                r.amount::text AS refund_amount, r.currency AS refund_currency,
                o.paid_amount::text AS paid_amount, o.paid_currency
           FROM refunds r JOIN orders o ON o.id = r.order_id
          WHERE ${IN_WINDOW} AND r.status <> 'rejected'
            AND (o.paid_amount IS NULL OR r.amount > o.paid_amount
                 OR r.currency <> COALESCE(o.paid_currency, o.currency))
          LIMIT ${INVARIANT_EXAMPLES}`,
      [window.since],
    ),
    dataSource.query(
      `SELECT o.id AS order_id, o.merchant_reference AS reference, o.status
           FROM orders o
          WHERE ${IN_WINDOW} AND o.status <> 'pending'
            AND NOT EXISTS (SELECT 1 FROM order_events e
                             WHERE e.order_id = o.id
                               AND e.type IN ('status_changed', 'attempt_cancelled')
                               AND e.to_status = o.status)
          LIMIT ${INVARIANT_EXAMPLES}`,
      [window.since],
    ),
    dataSource.query(
      `SELECT order_id, reference, expected_event FROM (
         SELECT e.order_id, o.merchant_reference AS reference,
                CASE WHEN e.type = 'attempt_cancelled' THEN 'order.attempt_cancelled'
                     ELSE 'order.' || e.to_status END AS expected_event
           FROM order_events e JOIN orders o ON o.id = e.order_id
          WHERE ${IN_WINDOW} AND e.created_at >= $3
            AND ((e.type = 'status_changed' AND e.to_status = ANY($2))
                 OR e.type = 'attempt_cancelled')) AS changes
          WHERE NOT EXISTS (SELECT 1 FROM outbox_events x
                             WHERE x.order_id = changes.order_id AND x.type = changes.expected_event)
          LIMIT ${INVARIANT_EXAMPLES}`,
      [window.since, ANNOUNCED_STATUSES, window.outboxSince],
    ),
    dataSource.query(
      `SELECT r.order_id, o.merchant_reference AS reference,
                'refund.' || r.status AS expected_event
           FROM refunds r JOIN orders o ON o.id = r.order_id
          WHERE ${IN_WINDOW} AND r.created_at >= $3 AND r.status = ANY($2)
            AND NOT EXISTS (SELECT 1 FROM outbox_events x
                             WHERE x.order_id = r.order_id AND x.type = 'refund.' || r.status)
          LIMIT ${INVARIANT_EXAMPLES}`,
      [window.since, ANNOUNCED_REFUNDS, window.outboxSince],
    ),
  ]);
  return {
    completed_twice: completedTwice,
    refund_exceeds_payment: refundExceeds,
    state_without_event: stateWithoutEvent,
    change_without_outbox: [...orderWithoutOutbox, ...refundWithoutOutbox],
  };
}

export function violationCount(violations: InvariantViolations): number {
  return Object.values(violations).reduce((sum, rows: unknown[]) => sum + rows.length, 0);
}
