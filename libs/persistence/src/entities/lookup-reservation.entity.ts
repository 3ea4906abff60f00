import { Entity, Index, PrimaryColumn } from 'typeorm';
import { InstantColumn } from './columns';

/**
 * When notifications may next cause a lookup of an order, shared by every worker when queues run
 * on PostgreSQL (with Redis, a Redis key does this): a lookup reserves the interval, the rest of a
 * burst waits for it. UNLOGGED: a crash forgets reservations, which only allows one lookup more.
 */
@Entity({ name: 'lookup_reservations' })
@Index('idx_lookup_reservations_until', ['reservedUntil'])
export class LookupReservationEntity {
  @PrimaryColumn({ name: 'order_id', type: 'uuid' })
  orderId!: string;

  @InstantColumn({ name: 'reserved_until' })
  reservedUntil!: Date;
}
