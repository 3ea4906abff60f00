/** What the database holds: its orders and its bytes on disk. */
import { Client } from 'pg';

export async function orderCount(db: Client): Promise<number> {
  const { rows } = await db.query('SELECT count(*)::int AS n FROM orders');
  return rows[0].n as number;
}

const RECORD_TABLES = [
  'orders',
  'order_events',
  'payment_attempts',
  'refunds',
  'subscription_charges',
  'reconciliation_reports',
];

/** Bytes on disk per table (with indexes and TOAST), the merchant's record apart. */
export async function storage(db: Client) {
  const { rows } = await db.query(
    `SELECT relname AS table, pg_total_relation_size(c.oid)::float8 AS bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY relname`,
  );
  const tables = Object.fromEntries(rows.map((r) => [r.table as string, Number(r.bytes)]));
  const total = Object.values(tables).reduce((sum, bytes) => sum + bytes, 0);
  const record = RECORD_TABLES.reduce((sum, table) => sum + (tables[table] ?? 0), 0);
  return { tables, total, record };
}
