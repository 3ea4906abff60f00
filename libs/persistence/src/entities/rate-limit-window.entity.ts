import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { InstantColumn } from './columns';

/**
 * The shared windows (libs/queues/src/shared-windows.ts) when queues run on PostgreSQL (with Redis,
 * a Redis key each): the requests an api key made in its current minute, and the workers' gateway
 * lookups in the current second. UNLOGGED: a crash forgets the counts, which only lets a client a
 * few more requests, or the workers a few more lookups.
 */
@Entity({ name: 'rate_limit_windows' })
@Index('idx_rate_limit_windows_ends', ['windowEnds'])
export class RateLimitWindowEntity {
  @PrimaryColumn({ type: 'varchar', length: 200 })
  key!: string;

  @Column({ type: 'integer' })
  hits!: number;

  @InstantColumn({ name: 'window_ends' })
  windowEnds!: Date;
}
