import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Several Pesapal merchant accounts: each order, IPN registration and notification names its
 * account. Existing rows are the account `default` (the single pair). Online on a large table:
 * adding a column with a constant default is a catalogue change (PostgreSQL 11+), no rewrite.
 */
export class GatewayAccounts1796200000000 implements MigrationInterface {
  name = 'GatewayAccounts1796200000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "ipn_notifications" ADD "gateway_account" character varying(20)`,
    );
    await queryRunner.query(
      `ALTER TABLE "ipn_registrations" ADD "gateway_account" character varying(20) NOT NULL DEFAULT 'default'`,
    );
    await queryRunner.query(
      `ALTER TABLE "orders" ADD "gateway_account" character varying(20) NOT NULL DEFAULT 'default'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "orders" DROP COLUMN "gateway_account"`);
    await queryRunner.query(`ALTER TABLE "ipn_registrations" DROP COLUMN "gateway_account"`);
    await queryRunner.query(`ALTER TABLE "ipn_notifications" DROP COLUMN "gateway_account"`);
  }
}
