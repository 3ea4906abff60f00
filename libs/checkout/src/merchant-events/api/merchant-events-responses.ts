import { NEXT_CURSOR } from '../../http/documented-schemas';
import { ApiProperty } from '@nestjs/swagger';
import { MERCHANT_EVENT_TYPES, SUBSCRIBABLE_EVENT_TYPES } from '@app/domain';

/**
 * Documentation of the merchant-events answers: the JSON itself is built by delivery-state.ts
 * (events, messages, attempts), endpoint-view.ts (endpoints) and the two services.
 */

const EVENT_ID = '0b7e3c1a-6f2d-4e8b-9c5a-2d1f0e9b8a71';
const ENDPOINT_ID = '5d2c9e4f-1a3b-4c6d-8e7f-9a0b1c2d3e4f';
const ORDER_ID = 'c3f1a9d2-7b4e-4f6a-8d1c-2e5b7a9c0f13';

export class MerchantEventResponse {
  @ApiProperty({ format: 'uuid', example: EVENT_ID, description: 'The webhook-id the shop sees' })
  id!: string;

  @ApiProperty({
    example: 'order.completed',
    description: `The event type: one of ${MERCHANT_EVENT_TYPES.join(', ')}`,
  })
  type!: string;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    example: ORDER_ID,
    description: 'null for an event of no order (an endpoint disabled, a test event)',
  })
  order_id!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'ORDER-2041',
    description: "The order's reference as the payload carries it (data.order.reference)",
  })
  order_reference!: string | null;

  @ApiProperty({
    enum: ['pending', 'queued', 'retrying', 'delivered', 'skipped', 'failed'],
    example: 'delivered',
    description:
      'pending: not yet handed to the endpoints; queued: handed over, no attempt yet; retrying: an attempt failed, more to come; delivered: every endpoint it went to answered 2xx; skipped: no enabled endpoint subscribed to it; failed: an endpoint used every attempt',
  })
  delivery_state!: string;

  @ApiProperty({ type: 'integer', example: 1, description: 'Attempts across all its endpoints' })
  attempts!: number;

  @ApiProperty({ type: String, nullable: true, example: null })
  last_error!: string | null;

  @ApiProperty({ type: String, format: 'date-time', example: '2026-01-02T09:31:12.000Z' })
  created_at!: string;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-01-02T09:31:12.050Z',
    description: 'When it was handed to the endpoints that subscribe to it',
  })
  relayed_at!: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-01-02T09:31:12.400Z',
  })
  delivered_at!: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: "The event's payload: what each endpoint receives as `data`",
    example: { order: { reference: 'ORDER-2041', status: 'completed', amount: '1500.00' } },
  })
  data!: Record<string, unknown>;
}

export class MerchantEventPageResponse {
  @ApiProperty({ type: [MerchantEventResponse], description: 'Newest first' })
  data!: MerchantEventResponse[];

  @ApiProperty(NEXT_CURSOR)
  next_cursor!: string | null;
}

/** One event on its way to one endpoint. */
export class WebhookMessageResponse {
  @ApiProperty({ format: 'uuid', example: ENDPOINT_ID })
  endpoint_id!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'https://shop.example/hooks/pesapal',
    description: "The endpoint's URL without credentials or query string; null if it is gone",
  })
  endpoint_url!: string | null;

  @ApiProperty({
    enum: ['pending', 'delivered', 'failed'],
    example: 'delivered',
    description:
      'pending: to be sent, or retried; delivered: a 2xx came back; failed: every attempt used',
  })
  state!: string;

  @ApiProperty({
    type: 'integer',
    example: 1,
    description: 'Attempts since it was (re)queued',
  })
  attempts!: number;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: null,
    description: 'When it is sent next; null unless pending',
  })
  next_attempt_at!: string | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  last_error!: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-01-02T09:31:12.400Z',
  })
  delivered_at!: string | null;
}

/** One attempt to deliver the event to one endpoint. */
export class WebhookDeliveryResponse {
  @ApiProperty({ format: 'uuid', example: '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b' })
  id!: string;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    example: ENDPOINT_ID,
    description: 'null once the endpoint is deleted, or for attempts older than endpoints',
  })
  endpoint_id!: string | null;

  @ApiProperty({ type: 'integer', example: 1 })
  attempt!: number;

  @ApiProperty({ example: 'https://shop.example/hooks/pesapal' })
  url!: string;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: 200,
    description: "The endpoint's HTTP status; null when no answer came",
  })
  response_status!: number | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  error!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'thanks',
    description: 'The start of what the endpoint answered',
  })
  response_excerpt!: string | null;

  @ApiProperty({ type: 'integer', example: 84 })
  duration_ms!: number;

  @ApiProperty({ type: String, format: 'date-time', example: '2026-01-02T09:31:12.316Z' })
  created_at!: string;
}

export class MerchantEventDeliveriesResponse {
  @ApiProperty({ type: MerchantEventResponse })
  event!: MerchantEventResponse;

  @ApiProperty({
    type: [WebhookMessageResponse],
    description: 'Where the event stands with each endpoint it went to',
  })
  endpoints!: WebhookMessageResponse[];

  @ApiProperty({ type: [WebhookDeliveryResponse], description: 'Every attempt, oldest first' })
  data!: WebhookDeliveryResponse[];
}

export class RedeliveryResponse {
  @ApiProperty({ format: 'uuid', example: EVENT_ID })
  event_id!: string;

  @ApiProperty({
    type: [String],
    format: 'uuid',
    example: [ENDPOINT_ID],
    description: 'The endpoints it was handed to again (none: no endpoint takes it)',
  })
  endpoints!: string[];
}

/** A webhook endpoint as admins see it: never its secret. */
export class WebhookEndpointResponse {
  @ApiProperty({ format: 'uuid', example: ENDPOINT_ID })
  id!: string;

  @ApiProperty({
    example: 'https://shop.example/hooks/pesapal',
    description: 'The environment endpoint’s is shown without credentials or query string',
  })
  url!: string;

  @ApiProperty({ example: 'fulfilment', description: 'Empty when none was given' })
  description!: string;

  @ApiProperty({
    type: [String],
    nullable: true,
    example: ['order.completed', 'refund.accepted'],
    description: `The event types it receives; null for every type. Each one of: ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}`,
  })
  event_types!: string[] | null;

  @ApiProperty({ enum: ['enabled', 'disabled'], example: 'enabled' })
  state!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'Why it is disabled (an admin, a 410, days of failures); null when enabled',
  })
  disabled_reason!: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null })
  disabled_at!: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: null,
    description: 'The first failed attempt since the last delivered one',
  })
  failing_since!: string | null;

  @ApiProperty({
    enum: ['admin', 'environment'],
    example: 'admin',
    description: 'admin: made through the API; environment: ORDER_WEBHOOK_URL',
  })
  source!: string;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: null,
    description: 'Until then deliveries are signed with the previous secret too',
  })
  previous_secret_expires_at!: string | null;

  @ApiProperty({ type: String, format: 'date-time', example: '2026-01-02T09:00:00.000Z' })
  created_at!: string;

  @ApiProperty({ type: String, format: 'date-time', example: '2026-01-02T09:00:00.000Z' })
  updated_at!: string;
}

export class WebhookEndpointWithSecretResponse extends WebhookEndpointResponse {
  @ApiProperty({
    example: 'whsec_…',
    description: 'The signing secret, shown in this answer only: keep it in the shop',
  })
  secret!: string;
}

export class WebhookEndpointListResponse {
  @ApiProperty({ type: [WebhookEndpointResponse], description: 'Oldest first' })
  data!: WebhookEndpointResponse[];
}

export class WebhookTestResponse {
  @ApiProperty({
    format: 'uuid',
    example: EVENT_ID,
    description: 'The webhook.test event queued for the endpoint',
  })
  event_id!: string;
}

export class WebhookReplayResponse {
  @ApiProperty({
    type: 'integer',
    example: 12,
    description: 'Events handed to the endpoint again',
  })
  queued!: number;
}
