import { MigrationInterface, QueryRunner } from 'typeorm';

/** The refund of a double payment's second payment, kept on its attempt's row. */
export class DoublePaymentRefunds1795602493786 implements MigrationInterface {
  name = 'DoublePaymentRefunds1795602493786';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "payment_attempts" ADD "refund_status" character varying(16)`,
    );
    await queryRunner.query(`ALTER TABLE "payment_attempts" ADD "refund_message" text`);
    await queryRunner.query(
      `ALTER TABLE "payment_attempts" ADD "refund_requested_by" character varying(100)`,
    );
    await queryRunner.query(
      `ALTER TABLE "payment_attempts" ADD "refund_requested_at" TIMESTAMP WITH TIME ZONE`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "payment_attempts" DROP COLUMN "refund_requested_at"`);
    await queryRunner.query(`ALTER TABLE "payment_attempts" DROP COLUMN "refund_requested_by"`);
    await queryRunner.query(`ALTER TABLE "payment_attempts" DROP COLUMN "refund_message"`);
    await queryRunner.query(`ALTER TABLE "payment_attempts" DROP COLUMN "refund_status"`);
  }
}
