import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The inbox's tracking-id index also orders by received_at: covering an order's notifications
 * received before a lookup started is then one range of one index, which the planner cannot
 * mistake for a scan of everything received before that time.
 */
export class InboxCoverIndex1795392808251 implements MigrationInterface {
  name = 'InboxCoverIndex1795392808251';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "idx_ipn_notifications_tracking_received" ON "ipn_notifications" ("order_tracking_id", "received_at")`,
    );
    await queryRunner.query(`DROP INDEX "public"."idx_ipn_notifications_tracking"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "idx_ipn_notifications_tracking" ON "ipn_notifications" ("order_tracking_id")`,
    );
    await queryRunner.query(`DROP INDEX "public"."idx_ipn_notifications_tracking_received"`);
  }
}
