import { Injectable, Logger } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { isUuid } from '@app/domain';
import {
  OrderRepository,
  OutboxEventEntity,
  WebhookDeliveryEntity,
  WebhookEndpointEntity,
  WebhookMessageEntity,
} from '@app/persistence';
import { CheckoutError } from '../../errors/checkout-error';
import { newestFirstList } from '../../http/page-cursor';
import {
  MerchantEventView,
  WebhookDeliveryView,
  WebhookMessageView,
  toMerchantEventView,
  toWebhookDeliveryView,
  toWebhookMessageView,
} from '../delivery-state';
import { DELIVERIES_SHOWN } from '../delivery-limits';
import { REQUEUE_MESSAGE } from '../endpoint-statements';
import { endpointTakes } from '../../orders/outbox-handover';

export interface MerchantEventFilter {
  type?: string;
  delivered?: boolean;
  order?: string;
  limit: number;
  /** next_cursor of the previous page. */
  cursor?: string;
}

export interface MerchantEventPage {
  data: MerchantEventView[];
  next_cursor: string | null;
}

const LIST = 'admin-merchant-events';

/** The admin's view of merchant events: list, attempt history, and redelivery. */
@Injectable()
export class MerchantEventsAdminService {
  private readonly logger = new Logger(MerchantEventsAdminService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
  ) {}

  /** Newest first, a cursor page at a time; each filter reads its own index. */
  async list(filter: MerchantEventFilter): Promise<MerchantEventPage> {
    const fingerprint = { type: filter.type, delivered: filter.delivered, order: filter.order };
    const pages = newestFirstList(LIST, fingerprint, filter.cursor);
    const query = this.dataSource.getRepository(OutboxEventEntity).createQueryBuilder('e');
    if (filter.type) query.andWhere('e.type = :type', { type: filter.type });
    if (filter.delivered !== undefined) {
      query.andWhere(filter.delivered ? 'e.delivered_at IS NOT NULL' : 'e.delivered_at IS NULL');
    }
    if (filter.order) {
      const order = await this.orders.findByAnyReference(filter.order);
      if (!order) return { data: [], next_cursor: null };
      query.andWhere('e.order_id = :orderId', { orderId: order.id });
    }
    const page = await pages.page(
      query,
      { alias: 'e', table: 'outbox_events', column: 'created_at', at: (e) => e.createdAt },
      filter.limit,
    );
    return { data: page.rows.map(toMerchantEventView), next_cursor: page.next_cursor };
  }

  /** The event, where it stands with each endpoint, and every attempt, oldest first. */
  async deliveries(eventId: string): Promise<{
    event: MerchantEventView;
    endpoints: WebhookMessageView[];
    data: WebhookDeliveryView[];
  }> {
    const event = await this.find(eventId);
    const [messages, deliveries] = await Promise.all([
      this.dataSource
        .getRepository(WebhookMessageEntity)
        .find({ where: { eventId }, order: { createdAt: 'ASC' } }),
      this.dataSource.getRepository(WebhookDeliveryEntity).find({
        where: { eventId },
        order: { createdAt: 'DESC', attempt: 'DESC' },
        take: DELIVERIES_SHOWN,
      }),
    ]);
    const endpoints = await this.dataSource
      .getRepository(WebhookEndpointEntity)
      .findBy({ id: In(messages.map((m) => m.endpointId)) });
    const byId = new Map(endpoints.map((endpoint) => [endpoint.id, endpoint]));
    return {
      event: toMerchantEventView(event),
      endpoints: messages.map((m) => toWebhookMessageView(m, byId.get(m.endpointId))),
      data: deliveries.reverse().map(toWebhookDeliveryView),
    };
  }

  /**
   * Sends the event again with fresh retries, to one endpoint or to every enabled endpoint that
   * subscribes to its type; the shop sees the same webhook-id and body, so it can de-duplicate.
   */
  async redeliver(
    eventId: string,
    endpointId: string | undefined,
    actor: string,
  ): Promise<{ event_id: string; endpoints: string[] }> {
    const event = await this.find(eventId);
    if (endpointId) {
      const exists = await this.dataSource
        .getRepository(WebhookEndpointEntity)
        .existsBy({ id: endpointId });
      if (!exists) throw CheckoutError.notFound('webhook_endpoint', endpointId);
    }
    const rows = (await this.dataSource.query(
      `WITH requeued AS (
         INSERT INTO webhook_messages (event_id, endpoint_id, order_id, event_created_at)
         SELECT $1, ep.id, $2::uuid, $3 FROM webhook_endpoints ep
          WHERE CASE WHEN $4::uuid IS NOT NULL THEN ep.id = $4::uuid
                     ELSE ${endpointTakes('ep', '$5')} END
         ${REQUEUE_MESSAGE}
         RETURNING endpoint_id),
       reopened AS (
         UPDATE outbox_events SET delivered_at = NULL, last_error = NULL,
                relayed_at = coalesce(relayed_at, now())
          WHERE id = $1 AND EXISTS (SELECT 1 FROM requeued))
       SELECT coalesce(array_agg(endpoint_id), '{}') AS endpoints FROM requeued`,
      [eventId, event.orderId, event.createdAt, endpointId ?? null, event.type],
    )) as { endpoints: string[] }[];
    const endpoints = rows[0]?.endpoints ?? [];
    this.logger.log(
      `merchant event ${eventId} handed again to ${endpoints.length} endpoint(s) by ${actor}`,
    );
    return { event_id: eventId, endpoints };
  }

  private async find(eventId: string): Promise<OutboxEventEntity> {
    const event = isUuid(eventId)
      ? await this.dataSource.getRepository(OutboxEventEntity).findOneBy({ id: eventId })
      : null;
    if (!event) throw CheckoutError.notFound('event', eventId);
    return event;
  }
}
