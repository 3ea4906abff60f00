import { MigrationInterface, QueryRunner } from 'typeorm';
import { alterBriefly } from './online-indexes';

/** The tables with a confirmation_code column (a gateway confirmation code). */
const TABLES_WITH_A_CONFIRMATION_CODE = [
  'orders',
  'payment_attempts',
  'refunds',
  'subscription_charges',
  'unmatched_payments',
] as const;

/**
 * Confirmation codes up to 500 characters (the gateway gives them no fixed length; a refund sends
 * one back exactly, so it cannot be cut to fit). Online on a large orders table: a longer
 * varchar limit is a catalogue change, with no rewrite of a table or of a plain index, and its
 * instant of exclusive lock never queues behind a long transaction (alterBriefly). The one index
 * built again is refunds' partial unique one (PostgreSQL rebuilds a partial index on a column
 * whose type changes): refunds wait while it is built over the refunds, at most one live refund
 * per payment, not over the orders. The previous release writes codes of at most 100 characters,
 * which both limits take.
 */
export class LongerConfirmationCodes1796500000000 implements MigrationInterface {
  name = 'LongerConfirmationCodes1796500000000';
  transaction = false as const;

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const table of TABLES_WITH_A_CONFIRMATION_CODE) {
      await alterBriefly(
        queryRunner,
        `ALTER TABLE "${table}" ALTER COLUMN "confirmation_code" TYPE character varying(500)`,
      );
    }
  }

  /** Back to 100 characters: refused at the first table where a row holds a longer code. */
  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [...TABLES_WITH_A_CONFIRMATION_CODE].reverse()) {
      await queryRunner.query(
        `ALTER TABLE "${table}" ALTER COLUMN "confirmation_code" TYPE character varying(100)`,
      );
    }
  }
}
