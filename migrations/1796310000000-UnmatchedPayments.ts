import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Payments without an order: what the gateway took for an order no row of ours carries, kept for
 * an operator to settle. A new, empty table: nothing to build online, nothing existing changes.
 */
export class UnmatchedPayments1796310000000 implements MigrationInterface {
  name = 'UnmatchedPayments1796310000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS "unmatched_payments" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "gateway_account" character varying(20) NOT NULL, "order_tracking_id" character varying(100) NOT NULL, "amount" numeric(15,2) NOT NULL, "currency" character varying(3) NOT NULL, "merchant_reference" character varying(100), "payment_method" character varying(64), "payment_account" character varying(64), "confirmation_code" character varying(100), "paid_at" TIMESTAMP WITH TIME ZONE, "gateway_record" jsonb, "notification_id" uuid, "status" character varying(16) NOT NULL DEFAULT 'open', "order_id" uuid, "settled_by_id" character varying(200), "settled_by" character varying(254), "settled_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_unmatched_payments" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX IF NOT EXISTS "uq_unmatched_payments_tracking" ON "unmatched_payments" ("gateway_account", "order_tracking_id")`,
    );
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS "idx_unmatched_payments_created" ON "unmatched_payments" ("created_at", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS "idx_unmatched_payments_status_created" ON "unmatched_payments" ("status", "created_at", "id")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE IF EXISTS "unmatched_payments"`);
  }
}
