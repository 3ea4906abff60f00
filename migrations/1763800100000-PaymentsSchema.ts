import { MigrationInterface, QueryRunner } from 'typeorm';

/** Orders and their timeline, the notification inbox, refunds, the merchant-event outbox. */
export class PaymentsSchema1763800100000 implements MigrationInterface {
  name = 'PaymentsSchema1763800100000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "idempotency_keys" ("scope" character varying(100) NOT NULL, "key" character varying(255) NOT NULL, "request_hash" character varying(64) NOT NULL, "response_status" integer, "response_body" jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_15de2f76fa9f27ad8f330983607" PRIMARY KEY ("scope", "key"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_idempotency_keys_expires" ON "idempotency_keys"  ("expires_at") `,
    );
    await queryRunner.query(
      `CREATE TABLE "ipn_notifications" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "order_tracking_id" character varying(100), "merchant_reference" character varying(150), "notification_type" character varying(32), "http_method" character varying(8) NOT NULL, "payload" jsonb NOT NULL DEFAULT '{}', "remote_address" character varying(64), "status" character varying(16) NOT NULL DEFAULT 'received', "order_id" uuid, "attempts" integer NOT NULL DEFAULT '0', "last_error" text, "received_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "next_attempt_at" TIMESTAMP WITH TIME ZONE, "processed_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_bf7334529025104f34d1f4bad23" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_ipn_notifications_received" ON "ipn_notifications"  ("received_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_ipn_notifications_tracking" ON "ipn_notifications"  ("order_tracking_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_ipn_notifications_status_due" ON "ipn_notifications"  ("status", "next_attempt_at") `,
    );
    await queryRunner.query(
      `CREATE TABLE "ipn_registrations" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "url" text NOT NULL, "method" character varying(4) NOT NULL, "ipn_id" character varying(64) NOT NULL, "gateway_created_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_20452262007a92c31f77429698c" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_ipn_registrations_url_method" ON "ipn_registrations"  ("url", "method") `,
    );
    await queryRunner.query(
      `CREATE TABLE "orders" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "merchant_reference" character varying(50) NOT NULL, "order_tracking_id" character varying(64), "push_merchant_reference" character varying(100), "kind" character varying(16) NOT NULL, "status" character varying(16) NOT NULL DEFAULT 'pending', "submission_status" character varying(16) NOT NULL DEFAULT 'submitting', "amount" numeric(15,2) NOT NULL, "currency" character varying(3) NOT NULL, "description" character varying(100) NOT NULL, "customer" jsonb NOT NULL DEFAULT '{}', "customer_email" character varying(254), "customer_phone" character varying(32), "return_url" text, "cancel_url" text, "branch" character varying(100), "redirect_mode" character varying(32), "subscription" jsonb, "account_number" character varying(100), "ipn_id" character varying(64), "redirect_url" text, "msisdn" character varying(32), "network" character varying(32), "business_number" character varying(64), "push_account_number" character varying(100), "confirmation_code" character varying(100), "payment_method" character varying(64), "payment_account" character varying(64), "paid_amount" numeric(15,2), "paid_currency" character varying(3), "failure_reason" character varying(100), "gateway_error" jsonb, "needs_review" boolean NOT NULL DEFAULT false, "review_reason" text, "paid_at" TIMESTAMP WITH TIME ZONE, "failed_at" TIMESTAMP WITH TIME ZONE, "cancelled_at" TIMESTAMP WITH TIME ZONE, "reversed_at" TIMESTAMP WITH TIME ZONE, "expired_at" TIMESTAMP WITH TIME ZONE, "next_poll_at" TIMESTAMP WITH TIME ZONE, "poll_attempts" integer NOT NULL DEFAULT '0', "last_checked_at" TIMESTAMP WITH TIME ZONE, "version" integer NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_710e2d4957aa5878dfe94e4ac2f" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_orders_merchant_reference" ON "orders"  ("merchant_reference") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_orders_order_tracking_id" ON "orders"  ("order_tracking_id") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_orders_push_merchant_reference" ON "orders"  ("push_merchant_reference") `,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_orders_customer_email" ON "orders"  ("customer_email") `,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_orders_customer_phone" ON "orders"  ("customer_phone") `,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_orders_account_number" ON "orders"  ("account_number") `,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_orders_confirmation_code" ON "orders"  ("confirmation_code") `,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_orders_due_poll" ON "orders"  ("next_poll_at") WHERE "status" IN ('pending', 'failed')`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_orders_status_created" ON "orders"  ("status", "created_at") `,
    );
    await queryRunner.query(
      `CREATE TABLE "order_events" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "order_id" uuid NOT NULL, "type" character varying(48) NOT NULL, "from_status" character varying(16), "to_status" character varying(16), "source" character varying(16) NOT NULL, "actor" character varying(100), "gateway_record" jsonb, "details" jsonb NOT NULL DEFAULT '{}', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_cc1b82b0fcf1be577d9d7ecbf8b" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_order_events_transition" ON "order_events"  ("order_id", "to_status") WHERE "type" = 'status_changed'`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_order_events_order" ON "order_events"  ("order_id", "created_at") `,
    );
    await queryRunner.query(
      `CREATE TABLE "outbox_events" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "order_id" uuid, "type" character varying(48) NOT NULL, "payload" jsonb NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "relayed_at" TIMESTAMP WITH TIME ZONE, "delivered_at" TIMESTAMP WITH TIME ZONE, "attempts" integer NOT NULL DEFAULT '0', "last_error" text, CONSTRAINT "PK_6689a16c00d09b8089f6237f1d2" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_outbox_events_order" ON "outbox_events"  ("order_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_outbox_events_unrelayed" ON "outbox_events"  ("created_at") WHERE "relayed_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "refunds" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "order_id" uuid NOT NULL, "confirmation_code" character varying(100) NOT NULL, "amount" numeric(15,2) NOT NULL, "currency" character varying(3) NOT NULL, "is_partial" boolean NOT NULL, "reason" text NOT NULL, "requested_by" character varying(100) NOT NULL, "admin_key_name" character varying(100) NOT NULL, "status" character varying(16) NOT NULL DEFAULT 'requested', "gateway_status" character varying(16), "gateway_message" text, "resolution_note" text, "resolved_by" character varying(100), "accepted_at" TIMESTAMP WITH TIME ZONE, "reversed_at" TIMESTAMP WITH TIME ZONE, "rejected_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_5106efb01eeda7e49a78b869738" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_refunds_order" ON "refunds"  ("order_id") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_refunds_confirmation_code" ON "refunds"  ("confirmation_code") `,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_refunds_status_created" ON "refunds"  ("status", "created_at") `,
    );
    await queryRunner.query(
      `CREATE TABLE "subscription_charges" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "order_id" uuid NOT NULL, "account_number" character varying(100) NOT NULL, "order_tracking_id" character varying(64) NOT NULL, "confirmation_code" character varying(100) NOT NULL, "amount" numeric(15,2) NOT NULL, "currency" character varying(3) NOT NULL, "charged_at" TIMESTAMP WITH TIME ZONE NOT NULL, "subscription_info" jsonb, "gateway_record" jsonb NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_3dce185069e15432f367bdc76d8" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_subscription_charges_confirmation_code" ON "subscription_charges"  ("confirmation_code") `,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_subscription_charges_order" ON "subscription_charges"  ("order_id", "charged_at") `,
    );
    await queryRunner.query(
      `CREATE TABLE "webhook_deliveries" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "event_id" uuid NOT NULL, "attempt" integer NOT NULL, "url" text NOT NULL, "response_status" integer, "error" text, "duration_ms" integer NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_535dd409947fb6d8fc6dfc0112a" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_webhook_deliveries_event" ON "webhook_deliveries"  ("event_id", "created_at") `,
    );
    await queryRunner.query(
      `ALTER TABLE "order_events" ADD CONSTRAINT "fk_order_events_order" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "refunds" ADD CONSTRAINT "fk_refunds_order" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "subscription_charges" ADD CONSTRAINT "fk_subscription_charges_order" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "fk_webhook_deliveries_event" FOREIGN KEY ("event_id") REFERENCES "outbox_events"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "fk_webhook_deliveries_event"`,
    );
    await queryRunner.query(
      `ALTER TABLE "subscription_charges" DROP CONSTRAINT "fk_subscription_charges_order"`,
    );
    await queryRunner.query(`ALTER TABLE "refunds" DROP CONSTRAINT "fk_refunds_order"`);
    await queryRunner.query(`ALTER TABLE "order_events" DROP CONSTRAINT "fk_order_events_order"`);
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_deliveries_event"`);
    await queryRunner.query(`DROP TABLE "webhook_deliveries"`);
    await queryRunner.query(`DROP INDEX "public"."idx_subscription_charges_order"`);
    await queryRunner.query(`DROP INDEX "public"."uq_subscription_charges_confirmation_code"`);
    await queryRunner.query(`DROP TABLE "subscription_charges"`);
    await queryRunner.query(`DROP INDEX "public"."idx_refunds_status_created"`);
    await queryRunner.query(`DROP INDEX "public"."uq_refunds_confirmation_code"`);
    await queryRunner.query(`DROP INDEX "public"."uq_refunds_order"`);
    await queryRunner.query(`DROP TABLE "refunds"`);
    await queryRunner.query(`DROP INDEX "public"."idx_outbox_events_unrelayed"`);
    await queryRunner.query(`DROP INDEX "public"."idx_outbox_events_order"`);
    await queryRunner.query(`DROP TABLE "outbox_events"`);
    await queryRunner.query(`DROP INDEX "public"."idx_order_events_order"`);
    await queryRunner.query(`DROP INDEX "public"."uq_order_events_transition"`);
    await queryRunner.query(`DROP TABLE "order_events"`);
    await queryRunner.query(`DROP INDEX "public"."idx_orders_status_created"`);
    await queryRunner.query(`DROP INDEX "public"."idx_orders_due_poll"`);
    await queryRunner.query(`DROP INDEX "public"."idx_orders_confirmation_code"`);
    await queryRunner.query(`DROP INDEX "public"."idx_orders_account_number"`);
    await queryRunner.query(`DROP INDEX "public"."idx_orders_customer_phone"`);
    await queryRunner.query(`DROP INDEX "public"."idx_orders_customer_email"`);
    await queryRunner.query(`DROP INDEX "public"."uq_orders_push_merchant_reference"`);
    await queryRunner.query(`DROP INDEX "public"."uq_orders_order_tracking_id"`);
    await queryRunner.query(`DROP INDEX "public"."uq_orders_merchant_reference"`);
    await queryRunner.query(`DROP TABLE "orders"`);
    await queryRunner.query(`DROP INDEX "public"."uq_ipn_registrations_url_method"`);
    await queryRunner.query(`DROP TABLE "ipn_registrations"`);
    await queryRunner.query(`DROP INDEX "public"."idx_ipn_notifications_status_due"`);
    await queryRunner.query(`DROP INDEX "public"."idx_ipn_notifications_tracking"`);
    await queryRunner.query(`DROP INDEX "public"."idx_ipn_notifications_received"`);
    await queryRunner.query(`DROP TABLE "ipn_notifications"`);
    await queryRunner.query(`DROP INDEX "public"."idx_idempotency_keys_expires"`);
    await queryRunner.query(`DROP TABLE "idempotency_keys"`);
  }
}
