import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * People and machines as operators: scoped API keys (kept as a keyed hash), console sessions
 * (kept as the token's hash) and refunds waiting for a second person's approval. New, empty
 * tables: nothing to build online.
 */
export class OperatorsAccess1796100000000 implements MigrationInterface {
  name = 'OperatorsAccess1796100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "api_keys" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" character varying(100) NOT NULL, "prefix" character varying(16) NOT NULL, "secret_hash" character(64) NOT NULL, "scopes" text array NOT NULL, "created_by" character varying(200) NOT NULL, "created_by_id" character varying(200) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE, "revoked_at" TIMESTAMP WITH TIME ZONE, "last_used_at" TIMESTAMP WITH TIME ZONE, "rolled_to" uuid, CONSTRAINT "PK_5c8a79801b44bd27b79228e1dad" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_api_keys_secret_hash" ON "api_keys"  ("secret_hash") `,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_api_keys_created" ON "api_keys"  ("created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "operator_sessions" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "token_hash" character(64) NOT NULL, "subject" character varying(200) NOT NULL, "email" character varying(254), "display_name" character varying(200), "roles" text array NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_seen_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "revoked_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_73b13bd07c5666193c04d434505" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_operator_sessions_token_hash" ON "operator_sessions"  ("token_hash") `,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_operator_sessions_expires" ON "operator_sessions"  ("expires_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_operator_sessions_subject" ON "operator_sessions"  ("subject") WHERE revoked_at IS NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "refund_approvals" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "order_id" uuid NOT NULL, "attempt_number" integer, "amount" numeric(15,2) NOT NULL, "currency" character(3) NOT NULL, "is_partial" boolean NOT NULL DEFAULT false, "reason" text NOT NULL, "status" character varying(16) NOT NULL DEFAULT 'pending', "requested_by_id" character varying(200) NOT NULL, "requested_by" character varying(254) NOT NULL, "requested_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "decided_by_id" character varying(200), "decided_by" character varying(254), "decided_at" TIMESTAMP WITH TIME ZONE, "decision_reason" text, CONSTRAINT "PK_d16965b37f09a66378c7a720f38" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_refund_approvals_status" ON "refund_approvals"  ("status", "requested_at", "id") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_refund_approvals_pending" ON "refund_approvals"  ("order_id") WHERE status = 'pending'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."uq_refund_approvals_pending"`);
    await queryRunner.query(`DROP INDEX "public"."idx_refund_approvals_status"`);
    await queryRunner.query(`DROP TABLE "refund_approvals"`);
    await queryRunner.query(`DROP INDEX "public"."idx_operator_sessions_subject"`);
    await queryRunner.query(`DROP INDEX "public"."idx_operator_sessions_expires"`);
    await queryRunner.query(`DROP INDEX "public"."uq_operator_sessions_token_hash"`);
    await queryRunner.query(`DROP TABLE "operator_sessions"`);
    await queryRunner.query(`DROP INDEX "public"."idx_api_keys_created"`);
    await queryRunner.query(`DROP INDEX "public"."uq_api_keys_secret_hash"`);
    await queryRunner.query(`DROP TABLE "api_keys"`);
  }
}
