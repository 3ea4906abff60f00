import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndexesOnline, dropIndexesOnline, OnlineIndex } from './online-indexes';

/**
 * Finance's reads by the date money moved: payments by when they were paid (orders and earlier
 * attempts), refunds by when the gateway accepted them (or, where acceptance was never seen, when
 * the reversal showed they moved money), reversals, failures and cancellations by when they
 * happened. Partial, so each holds only the rows that carry the date; built online.
 */
const INDEXES: OnlineIndex[] = [
  {
    name: 'idx_orders_paid_at',
    table: 'orders',
    definition: '(paid_at) WHERE paid_at IS NOT NULL',
  },
  {
    name: 'idx_orders_reversed_at',
    table: 'orders',
    definition: '(reversed_at) WHERE reversed_at IS NOT NULL',
  },
  {
    name: 'idx_orders_failed_at',
    table: 'orders',
    definition: '(failed_at) WHERE failed_at IS NOT NULL',
  },
  {
    name: 'idx_orders_cancelled_at',
    table: 'orders',
    definition: '(cancelled_at) WHERE cancelled_at IS NOT NULL',
  },
  {
    name: 'idx_refunds_settled_at',
    table: 'refunds',
    definition: `((COALESCE(accepted_at, reversed_at))) WHERE status IN ('accepted', 'reversed')`,
  },
  {
    name: 'idx_payment_attempts_paid_at',
    table: 'payment_attempts',
    definition: '(paid_at) WHERE paid_at IS NOT NULL',
  },
  {
    name: 'idx_payment_attempts_refunded_at',
    table: 'payment_attempts',
    definition: `(refund_requested_at) WHERE refund_status = 'accepted'`,
  },
];

export class MoneyMovementIndexes1795800000000 implements MigrationInterface {
  name = 'MoneyMovementIndexes1795800000000';
  /** CREATE INDEX CONCURRENTLY cannot run inside a transaction. */
  transaction = false as const;

  public async up(queryRunner: QueryRunner): Promise<void> {
    await createIndexesOnline(queryRunner, INDEXES);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await dropIndexesOnline(queryRunner, INDEXES);
  }
}
