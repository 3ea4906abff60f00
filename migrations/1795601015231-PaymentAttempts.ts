import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Payment attempts: an order may be paid on a later attempt, each its own gateway order. Existing
 * orders become single-attempt orders (attempt_number 1, sent under their merchant_reference,
 * every timeline event in attempt 1); a status transition is unique per attempt, not per order.
 */
export class PaymentAttempts1795601015231 implements MigrationInterface {
  name = 'PaymentAttempts1795601015231';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."uq_order_events_transition"`);
    await queryRunner.query(
      `CREATE TABLE "payment_attempts" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "order_id" uuid NOT NULL, "number" integer NOT NULL, "kind" character varying(16) NOT NULL, "gateway_reference" character varying(50) NOT NULL, "order_tracking_id" character varying(64), "push_merchant_reference" character varying(100), "status" character varying(16) NOT NULL, "failure_reason" character varying(100), "confirmation_code" character varying(100), "paid_amount" numeric(15,2), "paid_at" TIMESTAMP WITH TIME ZONE, "started_at" TIMESTAMP WITH TIME ZONE NOT NULL, "replaced_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_a0d8a67c07a0fef98dfd20214e5" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_payment_attempts_gateway_reference" ON "payment_attempts"  ("gateway_reference") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_payment_attempts_order_tracking_id" ON "payment_attempts"  ("order_tracking_id") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_payment_attempts_push_merchant_reference" ON "payment_attempts"  ("push_merchant_reference") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_payment_attempts_order_number" ON "payment_attempts"  ("order_id", "number") `,
    );
    await queryRunner.query(
      `ALTER TABLE "orders" ADD "attempt_number" integer NOT NULL DEFAULT '1'`,
    );
    await queryRunner.query(`ALTER TABLE "orders" ADD "gateway_reference" character varying(50)`);
    await queryRunner.query(
      `ALTER TABLE "orders" ADD "attempt_started_at" TIMESTAMP WITH TIME ZONE`,
    );
    await queryRunner.query(
      `ALTER TABLE "order_events" ADD "attempt" integer NOT NULL DEFAULT '1'`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_orders_gateway_reference" ON "orders"  ("gateway_reference") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_order_events_transition" ON "order_events"  ("order_id", "attempt", "to_status") WHERE "type" = 'status_changed'`,
    );
    await queryRunner.query(
      `ALTER TABLE "payment_attempts" ADD CONSTRAINT "fk_payment_attempts_order" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "payment_attempts" DROP CONSTRAINT "fk_payment_attempts_order"`,
    );
    await queryRunner.query(`DROP INDEX "public"."uq_order_events_transition"`);
    await queryRunner.query(`DROP INDEX "public"."uq_orders_gateway_reference"`);
    await queryRunner.query(`ALTER TABLE "order_events" DROP COLUMN "attempt"`);
    await queryRunner.query(`ALTER TABLE "orders" DROP COLUMN "attempt_started_at"`);
    await queryRunner.query(`ALTER TABLE "orders" DROP COLUMN "gateway_reference"`);
    await queryRunner.query(`ALTER TABLE "orders" DROP COLUMN "attempt_number"`);
    await queryRunner.query(`DROP INDEX "public"."uq_payment_attempts_order_number"`);
    await queryRunner.query(`DROP INDEX "public"."uq_payment_attempts_push_merchant_reference"`);
    await queryRunner.query(`DROP INDEX "public"."uq_payment_attempts_order_tracking_id"`);
    await queryRunner.query(`DROP INDEX "public"."uq_payment_attempts_gateway_reference"`);
    await queryRunner.query(`DROP TABLE "payment_attempts"`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_order_events_transition" ON "order_events" USING btree ("order_id", "to_status") WHERE ((type)::text = 'status_changed'::text)`,
    );
  }
}
