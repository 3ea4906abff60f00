import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAtColumn, InstantColumn, JsonColumn } from './columns';

/**
 * One reconciliation run: what it checked and every difference it found, with both sides.
 * Reports are evidence for a person; nothing is corrected from them automatically.
 */
@Entity({ name: 'reconciliation_reports' })
@Index('idx_reconciliation_reports_started', ['startedAt'])
export class ReconciliationReportEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** 'nightly' (the repeatable job) or 'admin' (on demand). */
  @Column({ type: 'varchar', length: 16 })
  trigger!: string;

  /** The admin key's name for an on-demand run. */
  @Column({ name: 'requested_by', type: 'varchar', length: 100, nullable: true })
  requestedBy!: string | null;

  @Column({ name: 'since_hours', type: 'integer' })
  sinceHours!: number;

  @InstantColumn({ name: 'started_at' })
  startedAt!: Date;

  @InstantColumn({ name: 'finished_at' })
  finishedAt!: Date;

  @Column({ name: 'orders_checked', type: 'integer' })
  ordersChecked!: number;

  @Column({ name: 'mismatch_count', type: 'integer' })
  mismatchCount!: number;

  /** Gateway differences, invariant violations and lookups that failed. */
  @JsonColumn()
  findings!: Record<string, unknown>;

  @CreatedAtColumn()
  createdAt!: Date;
}
