import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook endpoints kept as data (Standard Webhooks delivery): the endpoints, one message per event
 * and endpoint with its own retries, and the endpoint of each attempt. Events that were on the old
 * delivery queue and not yet delivered are handed to the new dispatcher (relayed_at cleared), so an
 * upgrade loses none of them. An event's time is now the statement's clock, so that two events of
 * one order written in one transaction are still delivered in the order they were written.
 */
export class WebhookEndpoints1795578175485 implements MigrationInterface {
  name = 'WebhookEndpoints1795578175485';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "webhook_endpoints" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "url" text NOT NULL, "description" character varying(200) NOT NULL DEFAULT '', "event_types" text array, "secret" text, "previous_secret" text, "previous_secret_expires_at" TIMESTAMP WITH TIME ZONE, "source" character varying(16) NOT NULL DEFAULT 'admin', "disabled_at" TIMESTAMP WITH TIME ZONE, "disabled_reason" character varying(200), "failing_since" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_054c4cfb95223732f5939d2d546" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_webhook_endpoints_environment" ON "webhook_endpoints"  ("source") WHERE "source" = 'environment'`,
    );
    await queryRunner.query(
      `CREATE TABLE "webhook_messages" ("event_id" uuid NOT NULL, "endpoint_id" uuid NOT NULL, "order_id" uuid, "event_created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "state" character varying(16) NOT NULL DEFAULT 'pending', "attempts" integer NOT NULL DEFAULT '0', "next_attempt_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "claimed_until" TIMESTAMP WITH TIME ZONE, "last_error" text, "delivered_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_3c9c8bb7143f6761a9c2b042d67" PRIMARY KEY ("event_id", "endpoint_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_webhook_messages_order_line" ON "webhook_messages"  ("endpoint_id", "order_id", "event_created_at") WHERE "state" = 'pending'`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_webhook_messages_due" ON "webhook_messages"  ("next_attempt_at") WHERE "state" = 'pending'`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" ADD "endpoint_id" uuid`);
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" ADD "response_excerpt" text`);
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "fk_webhook_deliveries_endpoint" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE SET NULL ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_messages" ADD CONSTRAINT "fk_webhook_messages_event" FOREIGN KEY ("event_id") REFERENCES "outbox_events"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_messages" ADD CONSTRAINT "fk_webhook_messages_endpoint" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "outbox_events" ALTER COLUMN "created_at" SET DEFAULT clock_timestamp()`,
    );
    await queryRunner.query(
      `UPDATE "outbox_events" SET "relayed_at" = NULL WHERE "delivered_at" IS NULL AND "relayed_at" IS NOT NULL AND ("last_error" IS NULL OR ("last_error" NOT LIKE 'gave up: %' AND "last_error" NOT LIKE 'skipped: %'))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "outbox_events" ALTER COLUMN "created_at" SET DEFAULT now()`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_messages" DROP CONSTRAINT "fk_webhook_messages_endpoint"`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_messages" DROP CONSTRAINT "fk_webhook_messages_event"`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "fk_webhook_deliveries_endpoint"`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" DROP COLUMN "response_excerpt"`);
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" DROP COLUMN "endpoint_id"`);
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_messages_due"`);
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_messages_order_line"`);
    await queryRunner.query(`DROP TABLE "webhook_messages"`);
    await queryRunner.query(`DROP INDEX "public"."uq_webhook_endpoints_environment"`);
    await queryRunner.query(`DROP TABLE "webhook_endpoints"`);
  }
}
