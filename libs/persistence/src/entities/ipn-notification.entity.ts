import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { sqlList } from '../sql-list';
import { InstantColumn, JsonColumn } from './columns';

export type NotificationStatus =
  | 'received' // stored, not yet queued (e.g. Redis was down)
  | 'queued'
  | 'applied' // looked up and applied (or found nothing to change)
  | 'unmatched' // names no order we know yet; retried later
  | 'ignored' // malformed or not an IPN; kept for an admin to see
  | 'failed'; // retries exhausted

/** Rows still waiting for a verdict: the relay queues them, verification closes them. */
export const OPEN_NOTIFICATION_STATUSES: readonly NotificationStatus[] = [
  'received',
  'queued',
  'unmatched',
];

/** The same list written for SQL: `('received', 'queued', 'unmatched')`. */
export const OPEN_NOTIFICATION_STATUSES_SQL = sqlList(OPEN_NOTIFICATION_STATUSES);

/** The inbox: every notification is stored before it is acknowledged, then verified by lookup. */
@Entity({ name: 'ipn_notifications' })
@Index('idx_ipn_notifications_status_due', ['status', 'nextAttemptAt'])
@Index('idx_ipn_notifications_tracking_received', ['orderTrackingId', 'receivedAt'])
@Index('idx_ipn_notifications_received', ['receivedAt'])
@Index('idx_ipn_notifications_status_received', ['status', 'receivedAt', 'id'])
export class IpnNotificationEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** The merchant account whose IPN URL it came to (null: before accounts, the default). */
  @Column({ name: 'gateway_account', type: 'varchar', length: 20, nullable: true })
  gatewayAccount!: string | null;

  @Column({ name: 'order_tracking_id', type: 'varchar', length: 100, nullable: true })
  orderTrackingId!: string | null;

  @Column({ name: 'merchant_reference', type: 'varchar', length: 150, nullable: true })
  merchantReference!: string | null;

  @Column({ name: 'notification_type', type: 'varchar', length: 32, nullable: true })
  notificationType!: string | null;

  @Column({ name: 'http_method', type: 'varchar', length: 8 })
  httpMethod!: string;

  /** The payload as received (bounded by the route's body limit), for inspection and replay. */
  @JsonColumn({ default: () => `'{}'` })
  payload!: Record<string, unknown>;

  @Column({ name: 'remote_address', type: 'varchar', length: 64, nullable: true })
  remoteAddress!: string | null;

  @Column({ type: 'varchar', length: 16, default: 'received' })
  status!: NotificationStatus;

  @Column({ name: 'order_id', type: 'uuid', nullable: true })
  orderId!: string | null;

  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  /**
   * The W3C traceparent of the request that stored the notification (tracing on): the worker's
   * verification continues that trace.
   */
  @Column({ name: 'trace_parent', type: 'varchar', length: 55, nullable: true })
  traceParent!: string | null;

  @InstantColumn({ name: 'received_at', default: () => 'now()' })
  receivedAt!: Date;

  @InstantColumn({ name: 'next_attempt_at', nullable: true })
  nextAttemptAt!: Date | null;

  @InstantColumn({ name: 'processed_at', nullable: true })
  processedAt!: Date | null;
}
