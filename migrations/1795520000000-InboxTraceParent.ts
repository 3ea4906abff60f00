import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The trace an IPN's request belongs to, kept with its inbox row, so that the worker's
 * verification (a job started later, in another process) continues the same trace.
 */
export class InboxTraceParent1795520000000 implements MigrationInterface {
  name = 'InboxTraceParent1795520000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "ipn_notifications" ADD "trace_parent" character varying(55)`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "ipn_notifications" DROP COLUMN "trace_parent"`);
  }
}
