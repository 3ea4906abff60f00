import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { IpnNotificationEntity, NotificationStatus } from '@app/persistence';
import { jobOptions, JobData, QUEUES, QueueName } from '@app/queues';
import { ApiKeyIdentity } from '../../http/api-keys';
import { CheckoutError } from '../../errors/checkout-error';
import { iso } from '../../orders/order-view';
import { ALL_QUEUES, AllQueues } from './dead-letters/all-queues';

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
    @Inject(ALL_QUEUES) private readonly queues: AllQueues,
  ) {}

  async list(status: NotificationStatus | undefined, limit = 50, offset = 0) {
    const [rows, total] = await this.dataSource.getRepository(IpnNotificationEntity).findAndCount({
      where: status ? { status } : {},
      order: { receivedAt: 'DESC', id: 'ASC' },
      take: limit,
      skip: offset,
    });
    return { items: rows.map(toView), total, limit, offset };
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
    const data: JobData['verify-notification'] = {
      notificationId: notification.id,
      orderKey: notification.orderTrackingId ?? notification.merchantReference ?? notification.id,
      // A fresh attempt number gives a fresh job id; the order key still de-duplicates.
      attempt: notification.attempts + 1,
    };
    const options = jobOptions('verify-notification', data);
    const queue = this.queues.get(QUEUES.notifications as QueueName)!;
    const existing = options.jobId ? await queue.getJob(options.jobId) : undefined;
    const state = existing ? await existing.getState() : 'missing';
    if (existing && state === 'failed') {
      await existing.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    } else if (!existing || state === 'completed' || state === 'unknown') {
      if (existing) await existing.remove();
      await queue.add('verify-notification', data, options);
    }
    await this.dataSource.getRepository(IpnNotificationEntity).update(
      { id: notification.id },
      {
        status: 'queued',
        nextAttemptAt: null,
        lastError: `replayed by ${caller.name} (was ${notification.status})`,
      },
    );
    return { ...(await this.get(id)), job: String(options.jobId) };
  }

  private async find(id: string): Promise<IpnNotificationEntity> {
    const found = /^[0-9a-f-]{36}$/i.test(id)
      ? await this.dataSource.getRepository(IpnNotificationEntity).findOneBy({ id })
      : null;
    if (!found) throw CheckoutError.notFound('notification', id);
    return found;
  }
}
