import { MigrationInterface, QueryRunner } from 'typeorm';

export class ReconciliationReports1795380869388 implements MigrationInterface {
  name = 'ReconciliationReports1795380869388';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "reconciliation_reports" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "trigger" character varying(16) NOT NULL, "requested_by" character varying(100), "since_hours" integer NOT NULL, "started_at" TIMESTAMP WITH TIME ZONE NOT NULL, "finished_at" TIMESTAMP WITH TIME ZONE NOT NULL, "orders_checked" integer NOT NULL, "mismatch_count" integer NOT NULL, "findings" jsonb NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_12ad01f5998711edaac25681bf4" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_reconciliation_reports_started" ON "reconciliation_reports"  ("started_at") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_reconciliation_reports_started"`);
    await queryRunner.query(`DROP TABLE "reconciliation_reports"`);
  }
}
