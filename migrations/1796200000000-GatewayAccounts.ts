import { MigrationInterface, QueryRunner } from 'typeorm';
import {
  alterBriefly,
  createIndexesOnline,
  dropIndexesOnline,
  OnlineIndex,
} from './online-indexes';

/** The admin's orders by account (and status), newest first: built online. */
const INDEXES: OnlineIndex[] = [
  {
    name: 'idx_orders_account_created',
    table: 'orders',
    definition: '(gateway_account, created_at, id)',
  },
  {
    name: 'idx_orders_account_status_created',
    table: 'orders',
    definition: '(gateway_account, status, created_at, id)',
  },
];

/**
 * Several Pesapal merchant accounts: each order, IPN registration and notification names its
 * account. Existing rows are the account `default` (the single pair). Online on a large table:
 * adding a column with a constant default is a catalogue change (PostgreSQL 11+), no rewrite,
 * and its instant of exclusive lock is never queued behind a long transaction (alterBriefly);
 * the admin's indexes by account are built CONCURRENTLY.
 */
export class GatewayAccounts1796200000000 implements MigrationInterface {
  name = 'GatewayAccounts1796200000000';
  /** CREATE INDEX CONCURRENTLY cannot run inside a transaction. */
  transaction = false as const;

  public async up(queryRunner: QueryRunner): Promise<void> {
    await alterBriefly(
      queryRunner,
      `ALTER TABLE "ipn_notifications" ADD IF NOT EXISTS "gateway_account" character varying(20)`,
    );
    await alterBriefly(
      queryRunner,
      `ALTER TABLE "ipn_registrations" ADD IF NOT EXISTS "gateway_account" character varying(20) NOT NULL DEFAULT 'default'`,
    );
    await alterBriefly(
      queryRunner,
      `ALTER TABLE "orders" ADD IF NOT EXISTS "gateway_account" character varying(20) NOT NULL DEFAULT 'default'`,
    );
    await createIndexesOnline(queryRunner, INDEXES);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await dropIndexesOnline(queryRunner, INDEXES);
    await queryRunner.query(`ALTER TABLE "orders" DROP COLUMN IF EXISTS "gateway_account"`);
    await queryRunner.query(
      `ALTER TABLE "ipn_registrations" DROP COLUMN IF EXISTS "gateway_account"`,
    );
    await queryRunner.query(
      `ALTER TABLE "ipn_notifications" DROP COLUMN IF EXISTS "gateway_account"`,
    );
  }
}
