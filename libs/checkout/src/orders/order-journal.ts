import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { cutText, MerchantEventType } from '@app/domain';
import { EventSource, OrderEntity, RefundEntity } from '@app/persistence';
import { recordCurrentAct } from '../operators/audit-trail';
import { REVIEW_REASON_MAX_LENGTH, toOrderView } from './order-view';
import { handedOverAtWrite } from './outbox-handover';

export interface JournalEntry {
  type: string;
  source: EventSource;
  fromStatus?: string | null;
  toStatus?: string | null;
  actor?: string | null;
  gatewayRecord?: unknown;
  details?: Record<string, unknown>;
  /** The payment attempt it belongs to (default 1: a checkout's first). */
  attempt?: number;
}

/** A merchant event as the outbox stores it: its type and what the shop receives. */
export interface Announcement {
  type: MerchantEventType;
  payload: Record<string, unknown>;
}

/** The merchant event of an order's change: the order as the shop sees it, and anything extra. */
export function announcement(
  type: MerchantEventType,
  order: OrderEntity,
  refund: RefundEntity | null = null,
  extra: Record<string, unknown> = {},
): Announcement {
  return { type, payload: { order: toOrderView(order, refund), ...extra } };
}

/**
 * The one statement shape that writes order_events and outbox_events (with its batched form,
 * journalledBatchStatement, below): the change (an
 * `INSERT|UPDATE orders ... RETURNING id, ...` whose parameters come first, or just an order id),
 * its timeline event if the entry's type is given, and its merchant event if one is announced
 * (skipped as it is written when no endpoint takes it: handedOverAtWrite), as data-modifying
 * CTEs. As atomic as a transaction, in one round trip; the answer is the changed row (none when
 * the change matched nothing, and then nothing is journalled either). `timelineOnly` is for a
 * change that never announces and never ends a payment link's hold (a checkout recorded, or
 * completed with the gateway's answer): it leaves out what only those need, which PostgreSQL
 * would otherwise run on every such write (its announcement must be null).
 */
export function journalledStatement(
  changeSql: string,
  changeParamCount: number,
  { timelineOnly = false }: { timelineOnly?: boolean } = {},
): string {
  const p = (n: number) => `$${changeParamCount + n}`;
  const event = `WITH changed AS (${changeSql}),
     event AS (
       INSERT INTO order_events
         (order_id, type, source, from_status, to_status, actor, gateway_record, details, attempt)
       SELECT changed.id, ${p(1)}::varchar, ${p(2)}::varchar, ${p(3)}::varchar, ${p(4)}::varchar,
              ${p(5)}::varchar, ${p(6)}::jsonb, ${p(7)}::jsonb, ${p(10)}::int
         FROM changed WHERE ${p(1)}::varchar IS NOT NULL)`;
  if (timelineOnly) {
    // The merchant event's parameters stay, typed, so that journalParams fits every shape.
    return `${event}
     SELECT changed.* FROM changed
      CROSS JOIN (SELECT ${p(8)}::varchar AS type, ${p(9)}::jsonb AS payload) never_announced`;
  }
  const handed = handedOverAtWrite(`${p(8)}::varchar`);
  return `${event},
     announced AS (
       INSERT INTO outbox_events (order_id, type, payload, relayed_at, last_error)
       SELECT changed.id, ${p(8)}::varchar, ${p(9)}::jsonb, ${handed.relayedAt}, ${handed.lastError}
         FROM changed ${handed.join} WHERE ${p(8)}::varchar IS NOT NULL)${paymentLinkTally(
           `SELECT changed.id, ${p(3)}::varchar AS from_status, ${p(4)}::varchar AS to_status
              FROM changed`,
         )}
     SELECT * FROM changed`;
}

/** The journal's columns, in journalParams' order, with their types. */
const JOURNAL_COLUMNS: readonly (readonly [string, string])[] = [
  ['event_type', 'varchar'],
  ['event_source', 'varchar'],
  ['from_status', 'varchar'],
  ['to_status', 'varchar'],
  ['actor', 'varchar'],
  ['gateway_record', 'jsonb'],
  ['details', 'jsonb'],
  ['announced_type', 'varchar'],
  ['announced_payload', 'jsonb'],
  ['attempt', 'int'],
];

/**
 * The journal's values of a change, in JOURNAL_COLUMNS' order, its jsonb ones as they are
 * (journalledBatchStatement's rows nest them in its one JSON parameter).
 */
export function journalValues(
  entry: JournalEntry | null,
  announced: Announcement | null,
): unknown[] {
  return [
    entry?.type ?? null,
    entry?.source ?? null,
    entry?.fromStatus ?? null,
    entry?.toStatus ?? null,
    entry?.actor ?? null,
    entry?.gatewayRecord ?? null,
    entry ? (entry.details ?? {}) : null,
    announced?.type ?? null,
    announced ? announced.payload : null,
    entry?.attempt ?? 1,
  ];
}

/** The journal's parameters of a journalledStatement, after the change's own. */
export function journalParams(
  entry: JournalEntry | null,
  announced: Announcement | null,
): unknown[] {
  return journalValues(entry, announced).map((value, i) =>
    value !== null && JOURNAL_COLUMNS[i][1] === 'jsonb' ? JSON.stringify(value) : value,
  );
}

/** A journalledBatchStatement and how its rows become its one parameter. */
export interface JournalledBatch {
  readonly text: string;
  /**
   * The rows (each the change's values, its journalValues, then the trailing ones, in the
   * statement's column order) as the statement's $1: one JSON array of arrays.
   */
  records(rows: readonly (readonly unknown[])[]): string;
}

/**
 * journalledStatement for many orders at once, one parsed statement for any batch size: the rows
 * come as one JSON parameter ($1, made by `records`), read as the rows of `v`: first the change's
 * own columns, then the journal's (each row's journalValues), then `trailing` ones the caller's
 * later CTEs need. Each row is an array in that order, the journal's jsonb values nested in it
 * as they are: one native JSON.stringify per batch writes it all, where an array parameter per
 * column has the driver quote and escape every value in JavaScript, and objects keyed by column
 * (or jsonb values sent as text) are serialised slower or twice. `change` is an
 * `UPDATE orders o ... FROM v ... RETURNING o.id, ...` (the CTE `changed`); every changed order
 * gets its timeline event and its merchant event from its row of `v`. `rest` gets the next free
 * parameter number and adds its CTEs (each starting with a comma) and the final SELECT.
 */
export function journalledBatchStatement(
  changeColumns: readonly (readonly [string, string])[],
  trailing: readonly (readonly [string, string])[],
  change: string,
  rest: (nextParam: number) => string,
): JournalledBatch {
  // A jsonb value is taken as it is nested (a JSON null is SQL NULL, as journalParams sends it);
  // any other as its text, cast to its column's type.
  const columns = [...changeColumns, ...JOURNAL_COLUMNS, ...trailing].map(([name, type], i) =>
    type === 'jsonb'
      ? `NULLIF(r->${i}, 'null'::jsonb) AS ${name}`
      : `(r->>${i})::${type} AS ${name}`,
  );
  const handed = handedOverAtWrite('v.announced_type');
  const text = `WITH v AS (SELECT ${columns.join(', ')} FROM jsonb_array_elements($1::jsonb) AS r),
     changed AS (${change}),
     event AS (
       INSERT INTO order_events
         (order_id, type, source, from_status, to_status, actor, gateway_record, details, attempt)
       SELECT v.id, v.event_type, v.event_source, v.from_status, v.to_status, v.actor,
              v.gateway_record, v.details, v.attempt
         FROM v JOIN changed USING (id) WHERE v.event_type IS NOT NULL),
     announced AS (
       INSERT INTO outbox_events (order_id, type, payload, relayed_at, last_error)
       SELECT v.id, v.announced_type, v.announced_payload, ${handed.relayedAt},
              ${handed.lastError}
         FROM v JOIN changed USING (id) ${handed.join}
        WHERE v.announced_type IS NOT NULL)${paymentLinkTally(
          'SELECT v.id, v.from_status, v.to_status FROM v JOIN changed USING (id)',
        )}${rest(2)}`;
  return {
    text,
    records: (rows) => JSON.stringify(rows),
  };
}

/** A link's payment ends its hold on a use when it is paid, fails or is closed unpaid. */
const ENDS_A_HOLD = `('completed', 'failed', 'cancelled', 'expired')`;

/**
 * The CTEs (each starting with a comma) by which a journal write keeps the counts of the payment
 * links its orders were paid through: `transitions` (SQL with columns id, from_status,
 * to_status: the orders changed and the statuses their entries record) gives each link its
 * payments completed and amount collected, and releases the use its order held (`holds`). The
 * write that pays a link's last use marks it completed and announces payment_link.completed.
 * Orders without a link cost one look at their row by key.
 */
function paymentLinkTally(transitions: string): string {
  return `,
     link_tally AS (
       SELECT o.payment_link_id AS id,
              count(*) FILTER (WHERE t.to_status = 'completed')::int AS completed,
              COALESCE(sum(o.amount) FILTER (WHERE t.to_status = 'completed'), 0) AS collected,
              array_agg(o.merchant_reference) AS released
         FROM (${transitions}) t JOIN orders o ON o.id = t.id
        WHERE t.to_status IN ${ENDS_A_HOLD} AND t.from_status IS DISTINCT FROM t.to_status
          AND o.payment_link_id IS NOT NULL
        GROUP BY o.payment_link_id),
     link_counted AS (
       UPDATE payment_links l
          SET payments_completed = l.payments_completed + link_tally.completed,
              amount_collected = l.amount_collected + link_tally.collected,
              holds = l.holds - link_tally.released,
              completed_at = CASE
                WHEN l.completed_at IS NULL AND l.max_payments IS NOT NULL
                 AND l.payments_completed + link_tally.completed >= l.max_payments THEN now()
                ELSE l.completed_at END,
              updated_at = now()
         FROM link_tally WHERE l.id = link_tally.id
       RETURNING l.id, l.description, l.currency, l.max_payments, l.payments_completed,
                 l.amount_collected, l.completed_at, link_tally.completed AS added),
     link_completed AS (${endpointEventInsert({
       type: 'payment_link.completed',
       payload: `jsonb_build_object('payment_link', jsonb_build_object(
                   'id', c.id, 'description', c.description, 'currency', c.currency,
                   'max_payments', c.max_payments, 'payments_completed', c.payments_completed,
                   'amount_collected', c.amount_collected::text,
                   'completed_at', to_char(c.completed_at AT TIME ZONE 'UTC',
                                           'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))`,
       from: 'link_counted c',
       where: `c.max_payments IS NOT NULL AND c.payments_completed >= c.max_payments
               AND c.payments_completed - c.added < c.max_payments`,
     })})`;
}

/**
 * The INSERT of a merchant event that concerns no order (an endpoint's: disabled, a test), for a
 * statement of the merchant-events feature: its type, its payload (an SQL expression over `from`),
 * and whether it is already handed to its endpoints (a test event goes to one, directly).
 */
export function endpointEventInsert(options: {
  type: string;
  payload: string;
  from?: string;
  where?: string;
  relayed?: boolean;
  returning?: string;
}): string {
  const relayed = options.relayed ? ', relayed_at' : '';
  return `INSERT INTO outbox_events (order_id, type, payload${relayed})
       SELECT NULL, '${options.type}', ${options.payload}${options.relayed ? ', now()' : ''}
       ${options.from ? `FROM ${options.from}` : ''} ${options.where ? `WHERE ${options.where}` : ''}
       ${options.returning ? `RETURNING ${options.returning}` : ''}`;
}

/** The change of a journal write that changes nothing on the order itself. */
const ORDER_ONLY = 'SELECT $1::uuid AS id';
const JOURNAL_ONLY = journalledStatement(ORDER_ONLY, 1);

/**
 * Writes an order's timeline and its merchant events, always through journalledStatement and
 * with the caller's EntityManager, inside the transaction that changes the order: the change,
 * its event and its outbox row commit together or not at all.
 */
@Injectable()
export class OrderJournal {
  /** A timeline event, and its merchant event if one is given. */
  async record(
    manager: EntityManager,
    order: OrderEntity,
    entry: JournalEntry,
    announced: Announcement | null = null,
  ): Promise<void> {
    await manager.query(JOURNAL_ONLY, [
      order.id,
      ...journalParams({ attempt: order.attemptNumber, ...entry }, announced),
    ]);
    // An operator's change to an order is their act in the audit trail, in the same transaction.
    if (entry.source === 'admin') {
      await recordCurrentAct(manager, {
        action: `order.${entry.type}`,
        target: `order:${order.merchantReference}`,
        after: entry.details ?? null,
      });
    }
  }

  /** A merchant event without a timeline event of its own. */
  async announce(
    manager: EntityManager,
    order: OrderEntity,
    type: MerchantEventType,
    refund: RefundEntity | null = null,
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    await manager.query(JOURNAL_ONLY, [
      order.id,
      ...journalParams(null, announcement(type, order, refund, extra)),
    ]);
  }

  /**
   * Runs one `INSERT|UPDATE orders ... RETURNING *` with its timeline event (and merchant event,
   * if any) in the same statement. The checkout path uses it twice per checkout. Answers the
   * changed row, if any.
   */
  async change(
    manager: EntityManager,
    [changeSql, changeParams]: [string, unknown[]],
    entry: JournalEntry,
    announced: Announcement | null = null,
  ): Promise<Record<string, unknown> | undefined> {
    const rows = (await manager.query(journalledStatement(changeSql, changeParams.length), [
      ...changeParams,
      ...journalParams(entry, announced),
    ])) as Record<string, unknown>[];
    return rows[0];
  }

  /**
   * Marks the order for a person to look at, with its timeline event and merchant event the first
   * time for a given reason (a repeated poll with the same finding adds nothing).
   */
  async flagForReview(
    manager: EntityManager,
    order: OrderEntity,
    reason: string,
    source: EventSource,
    gatewayRecord?: unknown,
  ): Promise<void> {
    // The reason may quote the gateway: kept to a bounded length (orders.review_reason is text).
    reason = cutText(reason, REVIEW_REASON_MAX_LENGTH);
    const firstTime = !order.needsReview || order.reviewReason !== reason;
    order.needsReview = true;
    order.reviewReason = reason;
    await manager.getRepository(OrderEntity).save(order);
    if (!firstTime) return;
    await this.record(
      manager,
      order,
      { type: 'flagged_for_review', source, gatewayRecord, details: { reason } },
      announcement('order.review_required', order, null, { reason }),
    );
  }
}
