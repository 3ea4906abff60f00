import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { InstantColumn } from './columns';

/**
 * The api's rate-limit windows when queues run on PostgreSQL (with Redis, a Redis key each): the
 * requests a key made in its current minute. UNLOGGED: a crash forgets the counts, which only
 * lets a client a few more requests.
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
