import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The api's rate-limit windows on the PostgreSQL queue backend. UNLOGGED: counts a crash may
 * forget (a client gets a few more requests), written on every limited request without WAL.
 */
export class RateLimitWindows1795590000000 implements MigrationInterface {
  name = 'RateLimitWindows1795590000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE UNLOGGED TABLE "rate_limit_windows" ("key" character varying(200) NOT NULL, "hits" integer NOT NULL, "window_ends" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_rate_limit_windows" PRIMARY KEY ("key"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "rate_limit_windows"`);
  }
}
