import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { isUuid } from '@app/domain';
import { IpnNotificationEntity, NotificationStatus } from '@app/persistence';
import { JobProducer, VerifyNotificationsData } from '@app/queues';
import { ApiKeyIdentity } from '../../http/api-keys';
import { CheckoutError } from '../../errors/checkout-error';
import { newestFirstList } from '../../http/page-cursor';
import { iso } from '../../orders/order-view';
import { NOTIFICATION_LAST_ERROR_MAX_LENGTH } from '../../ipn/inbox-limits';

export interface NotificationView {
  id: string;
  status: NotificationStatus;
  order_tracking_id: string | null;
  merchant_reference: string | null;
  notification_type: string | null;
  http_method: string;
  payload: Record<string, unknown>;
  remote_address: string | null;
  order_id: string | null;
  attempts: number;
  last_error: string | null;
  received_at: string;
  next_attempt_at: string | null;
  processed_at: string | null;
}

export interface NotificationFilters {
  status?: NotificationStatus;
  from?: string;
  to?: string;
  limit?: number;
  cursor?: string;
}

export interface NotificationPage {
  items: NotificationView[];
  limit: number;
  next_cursor: string | null;
}

const LIST = 'admin-notifications';

function toView(n: IpnNotificationEntity): NotificationView {
  return {
    id: n.id,
    status: n.status,
    order_tracking_id: n.orderTrackingId,
    merchant_reference: n.merchantReference,
    notification_type: n.notificationType,
    http_method: n.httpMethod,
    payload: n.payload,
    remote_address: n.remoteAddress,
    order_id: n.orderId,
    attempts: n.attempts,
    last_error: n.lastError,
    received_at: n.receivedAt.toISOString(),
    next_attempt_at: iso(n.nextAttemptAt),
    processed_at: iso(n.processedAt),
  };
}

/** The IPN inbox as stored: list, read one, and send one back through verification. */
@Injectable()
export class NotificationInboxService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly jobs: JobProducer,
  ) {}

  /** Newest first, a cursor page at a time (by status on its own index). */
  async list(filters: NotificationFilters): Promise<NotificationPage> {
    const limit = filters.limit ?? 50;
    const fingerprint = { status: filters.status, from: filters.from, to: filters.to };
    const pages = newestFirstList(LIST, fingerprint, filters.cursor);
    const query = this.dataSource.getRepository(IpnNotificationEntity).createQueryBuilder('n');
    if (filters.status) query.andWhere('n.status = :status', { status: filters.status });
    if (filters.from) query.andWhere('n.received_at >= :from', { from: new Date(filters.from) });
    if (filters.to) query.andWhere('n.received_at < :to', { to: new Date(filters.to) });
    const page = await pages.page(
      query,
      { alias: 'n', table: 'ipn_notifications', column: 'received_at', at: (n) => n.receivedAt },
      limit,
    );
    return { items: page.rows.map(toView), limit, next_cursor: page.next_cursor };
  }

  async get(id: string): Promise<NotificationView> {
    return toView(await this.find(id));
  }

  /**
   * Re-queues verification. The job id is fixed per notification (de-duplication), so a job that
   * already finished is retried or replaced rather than silently ignored by BullMQ.
   */
  async replay(id: string, caller: ApiKeyIdentity): Promise<NotificationView & { job: string }> {
    const notification = await this.find(id);
    const data: VerifyNotificationsData = {
      notifications: [
        {
          notificationId: notification.id,
          orderKey:
            notification.orderTrackingId ?? notification.merchantReference ?? notification.id,
          // A fresh attempt number gives a fresh job id.
          attempt: notification.attempts + 1,
        },
      ],
    };
    const existing = await this.jobs.existing('verify-notifications', data);
    const state = existing ? await existing.getState() : 'missing';
    let jobId = existing?.id;
    if (existing && state === 'failed') {
      await existing.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    } else if (!existing || state === 'completed' || state === 'unknown') {
      if (existing) await existing.remove();
      jobId = (await this.jobs.add('verify-notifications', data)).id;
    }
    await this.dataSource.getRepository(IpnNotificationEntity).update(
      { id: notification.id },
      {
        status: 'queued',
        nextAttemptAt: null,
        lastError: `replayed by ${caller.name} (was ${notification.status})`.slice(
          0,
          NOTIFICATION_LAST_ERROR_MAX_LENGTH,
        ),
      },
    );
    return { ...(await this.get(id)), job: String(jobId) };
  }

  private async find(id: string): Promise<IpnNotificationEntity> {
    const found = isUuid(id)
      ? await this.dataSource.getRepository(IpnNotificationEntity).findOneBy({ id })
      : null;
    if (!found) throw CheckoutError.notFound('notification', id);
    return found;
  }
}
