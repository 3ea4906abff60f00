import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndexesOnline, dropIndexesOnline, OnlineIndex } from './online-indexes';

/**
 * Indexes behind every admin list, filter and search, the stuck and backlog sets and the retention
 * job, so that each read is bounded by what it returns rather than by history. Built CONCURRENTLY
 * (outside a transaction) so a database holding millions of orders keeps taking checkouts and
 * notifications while they build; an index left invalid by an interrupted run is rebuilt.
 */
const INDEXES: OnlineIndex[] = [
  // Admin order lists, newest first, unfiltered and by currency (with and without status).
  { name: 'idx_orders_created', table: 'orders', definition: '(created_at, id)' },
  {
    name: 'idx_orders_currency_created',
    table: 'orders',
    definition: '(currency, created_at, id)',
  },
  {
    name: 'idx_orders_currency_status_created',
    table: 'orders',
    definition: '(currency, status, created_at, id)',
  },
  // The reconciliation's window: orders created or changed since.
  { name: 'idx_orders_updated', table: 'orders', definition: '(updated_at)' },
  // The stuck set and the review gauge, each on its own small partial index.
  {
    name: 'idx_orders_needs_review',
    table: 'orders',
    definition: '(created_at, id) WHERE needs_review',
  },
  {
    name: 'idx_orders_pending_created',
    table: 'orders',
    definition: `(created_at, id) WHERE status = 'pending'`,
  },
  {
    name: 'idx_orders_submission_open',
    table: 'orders',
    definition: `(created_at, id) WHERE submission_status IN ('unknown', 'submitting')`,
  },
  // Search: email case-insensitively, phones by their last nine digits.
  {
    name: 'idx_orders_customer_email_lower',
    table: 'orders',
    definition: '(lower(customer_email))',
  },
  {
    name: 'idx_orders_customer_phone_digits',
    table: 'orders',
    definition: `(right(regexp_replace(customer_phone, '\\D', '', 'g'), 9))`,
  },
  {
    name: 'idx_orders_msisdn_digits',
    table: 'orders',
    definition: `(right(regexp_replace(msisdn, '\\D', '', 'g'), 9))`,
  },
  // Every attempt's gateway ids find its order (the others are unique indexes already).
  {
    name: 'idx_payment_attempts_confirmation_code',
    table: 'payment_attempts',
    definition: '(confirmation_code)',
  },
  // An order's refunds, rejected ones included (the unique index leaves those out).
  { name: 'idx_refunds_order', table: 'refunds', definition: '(order_id, created_at)' },
  { name: 'idx_refunds_created', table: 'refunds', definition: '(created_at, id)' },
  {
    name: 'idx_refunds_currency_created',
    table: 'refunds',
    definition: '(currency, created_at, id)',
  },
  // The inbox list by status, and the retention of settled notifications.
  {
    name: 'idx_ipn_notifications_status_received',
    table: 'ipn_notifications',
    definition: '(status, received_at, id)',
  },
  // Merchant events list: all, by type, undelivered; retention walks the oldest.
  { name: 'idx_outbox_events_created', table: 'outbox_events', definition: '(created_at, id)' },
  {
    name: 'idx_outbox_events_type_created',
    table: 'outbox_events',
    definition: '(type, created_at, id)',
  },
  {
    name: 'idx_outbox_events_undelivered',
    table: 'outbox_events',
    definition: '(created_at, id) WHERE delivered_at IS NULL',
  },
  {
    name: 'idx_rate_limit_windows_ends',
    table: 'rate_limit_windows',
    definition: '(window_ends)',
  },
  {
    name: 'idx_lookup_reservations_until',
    table: 'lookup_reservations',
    definition: '(reserved_until)',
  },
];

/** Replaced by the expression indexes above (search compares lower(email) and phone digits). */
const REPLACED = ['idx_orders_customer_email', 'idx_orders_customer_phone'];

export class BoundedReads1795700000000 implements MigrationInterface {
  name = 'BoundedReads1795700000000';
  /** CREATE INDEX CONCURRENTLY cannot run inside a transaction. */
  transaction = false as const;

  public async up(queryRunner: QueryRunner): Promise<void> {
    await createIndexesOnline(queryRunner, INDEXES);
    for (const name of REPLACED) {
      await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "${name}"`);
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS "idx_orders_customer_phone" ON "orders" (customer_phone)`,
    );
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS "idx_orders_customer_email" ON "orders" (customer_email)`,
    );
    await dropIndexesOnline(queryRunner, INDEXES);
  }
}
