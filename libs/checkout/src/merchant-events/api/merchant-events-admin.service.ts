import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { isUuid } from '@app/domain';
import { OrderRepository, OutboxEventEntity, WebhookDeliveryEntity } from '@app/persistence';
import { JobProducer } from '@app/queues';
import { CheckoutError } from '../../errors/checkout-error';
import {
  MerchantEventView,
  WebhookDeliveryView,
  toMerchantEventView,
  toWebhookDeliveryView,
} from '../delivery-state';

export interface MerchantEventFilter {
  type?: string;
  delivered?: boolean;
  order?: string;
  limit: number;
  /** Id of the last event of the previous page. */
  before?: string;
}

export interface MerchantEventPage {
  data: MerchantEventView[];
  next_before: string | null;
}

/** The admin's view of merchant events: list, attempt history, and redelivery. */
@Injectable()
export class MerchantEventsAdminService {
  private readonly logger = new Logger(MerchantEventsAdminService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
    private readonly jobs: JobProducer,
  ) {}

  async list(filter: MerchantEventFilter): Promise<MerchantEventPage> {
    const query = this.dataSource
      .getRepository(OutboxEventEntity)
      .createQueryBuilder('e')
      .orderBy('e.created_at', 'DESC')
      .addOrderBy('e.id', 'DESC')
      .limit(filter.limit);
    if (filter.type) query.andWhere('e.type = :type', { type: filter.type });
    if (filter.delivered !== undefined) {
      query.andWhere(filter.delivered ? 'e.delivered_at IS NOT NULL' : 'e.delivered_at IS NULL');
    }
    if (filter.order) {
      const order = await this.orders.findByAnyReference(filter.order);
      if (!order) return { data: [], next_before: null };
      query.andWhere('e.order_id = :orderId', { orderId: order.id });
    }
    if (filter.before) {
      query.andWhere(
        '(e.created_at, e.id) < (SELECT b.created_at, b.id FROM outbox_events b WHERE b.id = :before)',
        { before: filter.before },
      );
    }
    const events = await query.getMany();
    return {
      data: events.map(toMerchantEventView),
      next_before: events.length === filter.limit ? events[events.length - 1].id : null,
    };
  }

  async deliveries(
    eventId: string,
  ): Promise<{ event: MerchantEventView; data: WebhookDeliveryView[] }> {
    const event = await this.find(eventId);
    const deliveries = await this.dataSource
      .getRepository(WebhookDeliveryEntity)
      .find({ where: { eventId }, order: { createdAt: 'ASC', attempt: 'ASC' } });
    return { event: toMerchantEventView(event), data: deliveries.map(toWebhookDeliveryView) };
  }

  /**
   * Queues the event again under a fresh job id (the relay's job may still be kept, completed or
   * failed); the shop sees the same event id and body, so it can de-duplicate. The event row is
   * left as it is: the attempt itself updates it, so no answer here can race the worker.
   */
  async redeliver(eventId: string, actor: string): Promise<{ event_id: string; job_id: string }> {
    await this.find(eventId);
    let jobId: string;
    try {
      const job = await this.jobs.add('deliver-event', {
        eventId,
        redelivery: `redeliver-${randomBytes(6).toString('hex')}`,
      });
      jobId = String(job.id);
    } catch (error) {
      this.logger.warn(
        `redelivery of ${eventId} not queued: ${error instanceof Error ? error.message : String(error)}`,
      );
      throw new CheckoutError(
        'queue_unavailable',
        'the delivery queue is unreachable; try again shortly',
      );
    }
    this.logger.log(`merchant event ${eventId} queued for redelivery by ${actor}`);
    return { event_id: eventId, job_id: jobId };
  }

  private async find(eventId: string): Promise<OutboxEventEntity> {
    const event = isUuid(eventId)
      ? await this.dataSource.getRepository(OutboxEventEntity).findOneBy({ id: eventId })
      : null;
    if (!event) throw CheckoutError.notFound('event', eventId);
    return event;
  }
}
