import { MigrationInterface, QueryRunner } from 'typeorm';

export class Init1763800000000 implements MigrationInterface {
  name = 'Init1763800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE EXTENSION IF NOT EXISTS pgcrypto');
  }

  public async down(_queryRunner: QueryRunner): Promise<void> {
    // pgcrypto may be shared with other schemas in the same database; leave it installed.
  }
}
