import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What Redis coordinates between processes, kept in PostgreSQL when queues run there (no Redis):
 * the shared gateway token with its refresh lock, and per-order lookup reservations. Both are
 * UNLOGGED: nothing in them outlives a crash that matters (a token is fetched again, a
 * reservation only saves a lookup), and they cost no WAL.
 */
export class CoordinationTables1795514719206 implements MigrationInterface {
  name = 'CoordinationTables1795514719206';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE UNLOGGED TABLE "gateway_tokens" ("key" character varying(100) NOT NULL, "token" text, "expires_at" TIMESTAMP WITH TIME ZONE, "issued_at" TIMESTAMP WITH TIME ZONE, "lock_owner" uuid, "locked_until" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_01e4659767b4794c94151d1e10c" PRIMARY KEY ("key"))`,
    );
    await queryRunner.query(
      `CREATE UNLOGGED TABLE "lookup_reservations" ("order_id" uuid NOT NULL, "reserved_until" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_37dff93f065486f524f329fc123" PRIMARY KEY ("order_id"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "lookup_reservations"`);
    await queryRunner.query(`DROP TABLE "gateway_tokens"`);
  }
}
