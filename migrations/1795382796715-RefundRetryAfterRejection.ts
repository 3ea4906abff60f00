import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A rejected refund request is not a refund at the gateway, so it no longer blocks a new attempt:
 * both unique indexes on refunds now cover only the rows that are not rejected. (TypeORM does not
 * compare index predicates, hence written by hand.)
 */
export class RefundRetryAfterRejection1795382796715 implements MigrationInterface {
  name = 'RefundRetryAfterRejection1795382796715';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."uq_refunds_order"`);
    await queryRunner.query(`DROP INDEX "public"."uq_refunds_confirmation_code"`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_refunds_order" ON "refunds" ("order_id") WHERE "status" <> 'rejected'`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_refunds_confirmation_code" ON "refunds" ("confirmation_code") WHERE "status" <> 'rejected'`,
    );
  }

  /** Fails while an order has more than one refund row (a retry after a rejection). */
  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."uq_refunds_confirmation_code"`);
    await queryRunner.query(`DROP INDEX "public"."uq_refunds_order"`);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_refunds_order" ON "refunds" ("order_id")`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_refunds_confirmation_code" ON "refunds" ("confirmation_code")`,
    );
  }
}
