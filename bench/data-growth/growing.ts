/** Step 2: growing the database to a year of orders by copying the final ones, then the overview's totals. */
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { waitUntil } from '../processes';
import { BATCH, say } from './settings';
import { orderCount } from './storage';

/**
 * Sums the grown history into the overview's hourly totals as a migrated database would be: the
 * totals emptied, the worker's minute job catching up from the oldest order. How long it took.
 */
export async function sumHistory(db: Client): Promise<number> {
  const started = performance.now();
  await db.query('DELETE FROM activity_rollup');
  await db.query('DELETE FROM activity_totals');
  await waitUntil(
    "the worker's summing of a year of hours",
    async () => {
      const { rows } = await db.query(
        `SELECT rolled_through >= date_trunc('hour', now() - interval '10 minutes', 'UTC') AS done
           FROM activity_rollup`,
      );
      return rows[0]?.done === true;
    },
    3_600_000,
  );
  return (performance.now() - started) / 1000;
}

/** Every column of `table` but its id, as the copy writes it. */
async function columnsOf(db: Client, table: string) {
  const { rows } = await db.query(
    `SELECT column_name AS name, data_type AS type FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name = $1 AND column_name <> 'id'
        AND is_generated = 'NEVER' ORDER BY ordinal_position`,
    [table],
  );
  return rows as { name: string; type: string }[];
}

/** Identifiers that must differ per copy: the original's, with the copy's number appended. */
const IDENTIFIERS = new Set([
  'merchant_reference',
  'order_tracking_id',
  'push_merchant_reference',
  'gateway_reference',
  'confirmation_code',
  'account_number',
]);

/**
 * Copies the final orders (and their rows) until the database holds `target` orders, BATCH at a
 * time; copy g is dated g/target of a year ago (the newest first) and is another customer's.
 */
export async function grow(
  db: Client,
  target: number,
): Promise<{ orders: number; seconds: number }> {
  const started = performance.now();
  await db.query('SET synchronous_commit = off');
  await db.query(
    `CREATE TEMP TABLE templates AS
       SELECT id, created_at, row_number() OVER (ORDER BY created_at) - 1 AS n
         FROM orders WHERE status <> 'pending'`,
  );
  const { rows: t } = await db.query('SELECT count(*)::int AS n FROM templates');
  const templates = t[0].n as number;
  const have = await orderCount(db);
  const expression = (table: string, column: { name: string; type: string }) => {
    if (column.name === 'order_id') return 'm.new_id';
    if (table === 'orders' && column.name === 'next_poll_at') return 'NULL';
    // A year on, what the worker would have made of each copy: unpaid ones expired at the poll
    // horizon, refunds the gateway accepted followed up to reversed (and their orders with them).
    if (table === 'orders' && column.name === 'status') {
      return `CASE WHEN src.status IN ('pending', 'failed') THEN 'expired'
                   WHEN EXISTS (SELECT 1 FROM tpl_refunds r WHERE r.order_id = src.id
                                   AND r.status IN ('requested', 'accepted', 'unknown'))
                   THEN 'reversed' ELSE src.status END`;
    }
    if (table === 'orders' && column.name === 'reversed_at') {
      return `CASE WHEN EXISTS (SELECT 1 FROM tpl_refunds r WHERE r.order_id = src.id
                                   AND r.status IN ('requested', 'accepted', 'unknown'))
                   THEN m.created_at + interval '2 days' ELSE src.reversed_at + m.shift END`;
    }
    if (table === 'refunds' && column.name === 'status') {
      return `CASE WHEN src.status IN ('requested', 'accepted', 'unknown') THEN 'reversed' ELSE src.status END`;
    }
    if (table === 'refunds' && column.name === 'reversed_at') {
      return `CASE WHEN src.status IN ('requested', 'accepted', 'unknown') THEN m.created_at + interval '2 days' ELSE src.reversed_at + m.shift END`;
    }
    if (table === 'orders' && column.name === 'expired_at') {
      return `CASE WHEN src.status IN ('pending', 'failed') THEN m.created_at + interval '72 hours' ELSE src.expired_at + m.shift END`;
    }
    if (table === 'orders' && column.name === 'customer_email') {
      return `'customer' || m.g || '@example.com'`;
    }
    if (table === 'orders' && (column.name === 'customer_phone' || column.name === 'msisdn')) {
      return `CASE WHEN src.${column.name} IS NULL THEN NULL ELSE '+2547' || lpad((m.g % 100000000)::text, 8, '0') END`;
    }
    if (IDENTIFIERS.has(column.name)) {
      return `CASE WHEN src.${column.name} IS NULL THEN NULL ELSE left(src.${column.name}, 36) || '~' || m.g END`;
    }
    if (column.type === 'timestamp with time zone') return `src.${column.name} + m.shift`;
    return `src.${column.name}`;
  };
  const copies: { table: string; sql: string }[] = [];
  for (const table of [
    'orders',
    'order_events',
    'payment_attempts',
    'ipn_notifications',
    'outbox_events',
    'refunds',
    'subscription_charges',
  ]) {
    const columns = await columnsOf(db, table);
    const names = (table === 'orders' ? [{ name: 'id', type: 'uuid' }, ...columns] : columns)
      .map((c) => `"${c.name}"`)
      .join(', ');
    const values = (
      table === 'orders'
        ? ['m.new_id', ...columns.map((c) => expression(table, c))]
        : columns.map((c) => expression(table, c))
    ).join(', ');
    const key = table === 'orders' ? 'id' : 'order_id';
    // The templates' own rows, read once: the copies never scan the growing tables.
    await db.query(
      `CREATE TEMP TABLE tpl_${table} AS SELECT * FROM ${table} WHERE ${key} IN (SELECT id FROM templates)`,
    );
    await db.query(`CREATE INDEX ON tpl_${table} (${key})`);
    copies.push({
      table,
      sql: `INSERT INTO ${table} (${names}) SELECT ${values} FROM tpl_${table} src JOIN grow_map m ON src.${key} = m.template_id`,
    });
  }
  // Copies are dated from the poll horizon (72 h) back to a year ago: every unpaid copy has
  // expired, as the worker would have made it.
  const spread = 362 * 86_400;
  // A bulk load's usual way: the copied tables' secondary indexes are dropped while the rows go
  // in and built afterwards (sorted, in parallel), which takes minutes instead of an hour at ten
  // million orders. BENCH_DATA_REBUILD_INDEXES=0 keeps them (each row then updates each index).
  const rebuild = process.env.BENCH_DATA_REBUILD_INDEXES !== '0';
  const { rows: indexes } = rebuild
    ? await db.query(
        `SELECT i.indexname AS name, i.indexdef AS definition FROM pg_indexes i
          WHERE i.schemaname = 'public' AND i.tablename = ANY($1)
            AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
        [copies.map((copy) => copy.table)],
      )
    : { rows: [] };
  for (const index of indexes) await db.query(`DROP INDEX "${String(index.name)}"`);
  for (let from = have + 1; from <= target; from += BATCH) {
    const to = Math.min(target, from + BATCH - 1);
    await db.query('BEGIN');
    await db.query(
      `CREATE TEMP TABLE grow_map ON COMMIT DROP AS
         SELECT g, gen_random_uuid() AS new_id, t.id AS template_id,
                now() - interval '72 hours' - make_interval(secs => (g::float8 / $3) * $4) AS created_at,
                now() - interval '72 hours' - make_interval(secs => (g::float8 / $3) * $4)
                  - t.created_at AS shift
           FROM generate_series($1::int, $2::int) AS g
           JOIN templates t ON t.n = g % $5`,
      [from, to, target, spread, templates],
    );
    await db.query('CREATE INDEX ON grow_map (template_id)');
    for (const copy of copies) await db.query(copy.sql);
    await db.query('COMMIT');
    const done = to;
    const rate = (done - have) / ((performance.now() - started) / 1000);
    process.stdout.write(`\r  ${done.toLocaleString('en')} orders (${rate.toFixed(0)}/s)   `);
  }
  process.stdout.write('\n');
  if (indexes.length > 0) {
    say(`  building ${indexes.length} indexes…`);
    await db.query(`SET maintenance_work_mem = '1GB'`);
    await db.query('SET max_parallel_maintenance_workers = 2');
    for (const index of indexes) await db.query(String(index.definition));
  }
  return { orders: await orderCount(db), seconds: (performance.now() - started) / 1000 };
}
