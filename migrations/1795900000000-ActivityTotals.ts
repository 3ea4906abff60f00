import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndexesOnline, dropIndexesOnline, OnlineIndex } from './online-indexes';

/**
 * The overview's hourly totals and where their summing stands, with the indexes the summing reads
 * an hour through: orders by when they expired, refunds by when they last changed, webhook
 * attempts by when they were made. The tables start empty (the worker fills them from history,
 * a week per step); the indexes are built online.
 */
const INDEXES: OnlineIndex[] = [
  {
    name: 'idx_orders_expired_at',
    table: 'orders',
    definition: '(expired_at) WHERE expired_at IS NOT NULL',
  },
  { name: 'idx_refunds_updated', table: 'refunds', definition: '(updated_at)' },
  {
    name: 'idx_webhook_deliveries_created',
    table: 'webhook_deliveries',
    definition: '(created_at)',
  },
];

export class ActivityTotals1795900000000 implements MigrationInterface {
  name = 'ActivityTotals1795900000000';
  /** CREATE INDEX CONCURRENTLY cannot run inside a transaction. */
  transaction = false as const;

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS "activity_totals" ("hour" TIMESTAMP WITH TIME ZONE NOT NULL, "measure" character varying(32) NOT NULL, "key" character varying(100) NOT NULL, "count" integer NOT NULL, "amount" numeric, CONSTRAINT "PK_activity_totals" PRIMARY KEY ("hour", "measure", "key"))`,
    );
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS "activity_rollup" ("name" character varying(32) NOT NULL, "rolled_through" TIMESTAMP WITH TIME ZONE NOT NULL, "changes_read_through" TIMESTAMP WITH TIME ZONE NOT NULL, "recent_summed_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_activity_rollup" PRIMARY KEY ("name"))`,
    );
    await createIndexesOnline(queryRunner, INDEXES);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await dropIndexesOnline(queryRunner, INDEXES);
    await queryRunner.query(`DROP TABLE IF EXISTS "activity_rollup"`);
    await queryRunner.query(`DROP TABLE IF EXISTS "activity_totals"`);
  }
}
