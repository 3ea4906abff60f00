import { Column, Entity, PrimaryColumn } from 'typeorm';
import { INSTANT, InstantColumn } from './columns';

/**
 * The overview's hourly totals: one row per hour, measure and key (e.g. `payment` × `KES`,
 * `failed` × the gateway's reason, `notification_lag` × a lag bin), summed by the worker from
 * the orders, refunds, notifications and webhook attempts of that hour. The overview reads these
 * instead of the history, so a month's charts cost the same with ten orders or ten million.
 */
@Entity({ name: 'activity_totals' })
export class ActivityTotalEntity {
  @PrimaryColumn({ type: INSTANT })
  hour!: Date;

  @PrimaryColumn({ type: 'varchar', length: 32 })
  measure!: string;

  @PrimaryColumn({ type: 'varchar', length: 100 })
  key!: string;

  @Column({ type: 'integer' })
  count!: number;

  /** The sum of the hour's amounts for money measures (signed, exact); null for counts. */
  @Column({ type: 'numeric', nullable: true })
  amount!: string | null;
}

/**
 * Where the summing of hours stands (one row): every hour before `rolled_through` is in
 * activity_totals; changes to orders and refunds made since `changes_read_through` are yet to be
 * summed again into the hours they touched (a payment learned late is dated when it was paid).
 */
@Entity({ name: 'activity_rollup' })
export class ActivityRollupEntity {
  @PrimaryColumn({ type: 'varchar', length: 32 })
  name!: string;

  @InstantColumn({ name: 'rolled_through' })
  rolledThrough!: Date;

  @InstantColumn({ name: 'changes_read_through' })
  changesReadThrough!: Date;

  /** When the hours within the poll horizon were last summed again whole. */
  @InstantColumn({ name: 'recent_summed_at' })
  recentSummedAt!: Date;
}
