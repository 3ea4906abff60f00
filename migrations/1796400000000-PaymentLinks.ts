import { MigrationInterface, QueryRunner } from 'typeorm';
import {
  alterBriefly,
  createIndexesOnline,
  dropIndexesOnline,
  OnlineIndex,
} from './online-indexes';

/**
 * A link's payments, newest first, and its unpaid ones (closed before a later payment takes their
 * use): only orders paid through a link are in them.
 */
const INDEXES: OnlineIndex[] = [
  {
    name: 'idx_orders_payment_link_created',
    table: 'orders',
    definition: `(payment_link_id, created_at, id) WHERE "payment_link_id" IS NOT NULL`,
  },
  {
    name: 'idx_orders_payment_link_unpaid',
    table: 'orders',
    definition: `(payment_link_id) WHERE "payment_link_id" IS NOT NULL AND "status" IN ('pending', 'failed')`,
  },
];

/**
 * Payment links: a new table, and the link each order was paid through. Online on a large
 * orders table: a nullable column without a default is a catalogue change (its instant of
 * exclusive lock never queued behind a long transaction: alterBriefly), and its index is built
 * CONCURRENTLY. The previous release never names the column: it writes orders without it.
 */
export class PaymentLinks1796400000000 implements MigrationInterface {
  name = 'PaymentLinks1796400000000';
  /** CREATE INDEX CONCURRENTLY cannot run inside a transaction. */
  transaction = false as const;

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS "payment_links" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "amount" numeric(15,2), "min_amount" numeric(15,2), "max_amount" numeric(15,2), "currency" character varying(3) NOT NULL, "gateway_account" character varying(20) NOT NULL, "description" character varying(100) NOT NULL, "reference_prefix" character varying(30) NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE, "max_payments" integer, "after_payment_url" text, "after_payment_message" character varying(500), "collect" jsonb NOT NULL DEFAULT '["email"]', "active" boolean NOT NULL DEFAULT true, "payments_started" integer NOT NULL DEFAULT '0', "payments_completed" integer NOT NULL DEFAULT '0', "amount_collected" numeric(15,2) NOT NULL DEFAULT '0', "holds" jsonb NOT NULL DEFAULT '{}', "created_by" character varying(254) NOT NULL, "completed_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_payment_links" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX IF NOT EXISTS "uq_payment_links_reference_prefix" ON "payment_links" ("reference_prefix")`,
    );
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS "idx_payment_links_created" ON "payment_links" ("created_at", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS "idx_payment_links_currency_created" ON "payment_links" ("currency", "created_at", "id")`,
    );
    await alterBriefly(
      queryRunner,
      `ALTER TABLE "orders" ADD IF NOT EXISTS "payment_link_id" uuid`,
    );
    await createIndexesOnline(queryRunner, INDEXES);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await dropIndexesOnline(queryRunner, INDEXES);
    await queryRunner.query(`ALTER TABLE "orders" DROP COLUMN IF EXISTS "payment_link_id"`);
    await queryRunner.query(`DROP TABLE IF EXISTS "payment_links"`);
  }
}
