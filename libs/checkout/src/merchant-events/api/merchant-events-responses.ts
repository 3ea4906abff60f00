import {
  DATE_TIME,
  INTEGER,
  MERCHANT_REFERENCE,
  NEXT_CURSOR,
  NULLABLE_DATE_TIME,
  text,
  URL_MAX_LENGTH,
  UUID,
} from '../../http/documented-schemas';
import { PAGE_LIMIT_MAX } from '../../http/page-query';
import { ApiProperty } from '@nestjs/swagger';
import {
  MAX_WEBHOOK_SECRET_BYTES,
  MERCHANT_EVENT_TYPES,
  SUBSCRIBABLE_EVENT_TYPES,
  WEBHOOK_SECRET_PREFIX,
} from '@app/domain';
import { EVENT_LAST_ERROR_MAX_LENGTH } from '../delivery-state';
import {
  DELIVERIES_SHOWN,
  EXCERPT_BYTES,
  HTTP_STATUS_MAX,
  HTTP_STATUS_MIN,
  WEBHOOK_ENDPOINTS_LIMIT,
  WEBHOOK_ENDPOINTS_LISTED_MAX,
  WEBHOOK_ERROR_MAX_LENGTH,
} from '../delivery-limits';

/**
 * Documentation of the merchant-events answers: the JSON itself is built by delivery-state.ts
 * (events, messages, attempts), endpoint-view.ts (endpoints) and the two services.
 */

const EVENT_ID = '0b7e3c1a-6f2d-4e8b-9c5a-2d1f0e9b8a71';
const ENDPOINT_ID = '5d2c9e4f-1a3b-4c6d-8e7f-9a0b1c2d3e4f';
const ORDER_ID = 'c3f1a9d2-7b4e-4f6a-8d1c-2e5b7a9c0f13';

/** webhook_endpoints.description and disabled_reason are varchar(200) (the reason is cut there). */
const ENDPOINT_TEXT_MAX_LENGTH = 200;
/** A URL as admins see it: as given (validated to URL_MAX_LENGTH), or displayUrlOf's, cut there. */
const ENDPOINT_URL = text(URL_MAX_LENGTH);
/** A Standard Webhooks secret: the prefix and the base64 of at most MAX_WEBHOOK_SECRET_BYTES. */
const SECRET_MAX_LENGTH =
  WEBHOOK_SECRET_PREFIX.length + Math.ceil(MAX_WEBHOOK_SECRET_BYTES / 3) * 4;

export class MerchantEventResponse {
  @ApiProperty({ ...UUID, example: EVENT_ID, description: 'The webhook-id the shop sees' })
  id!: string;

  @ApiProperty({
    enum: MERCHANT_EVENT_TYPES,
    example: 'order.completed',
    description: `The event type: one of ${MERCHANT_EVENT_TYPES.join(', ')}`,
  })
  type!: string;

  @ApiProperty({
    ...UUID,
    nullable: true,
    example: ORDER_ID,
    description: 'null for an event of no order (an endpoint disabled, a test event)',
  })
  order_id!: string | null;

  @ApiProperty({
    ...MERCHANT_REFERENCE,
    nullable: true,
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

  @ApiProperty({ ...INTEGER, example: 1, description: 'Attempts across all its endpoints' })
  attempts!: number;

  @ApiProperty(text(EVENT_LAST_ERROR_MAX_LENGTH, { nullable: true, example: null }))
  last_error!: string | null;

  @ApiProperty({ ...DATE_TIME, example: '2026-01-02T09:31:12.000Z' })
  created_at!: string;

  @ApiProperty({
    ...NULLABLE_DATE_TIME,
    example: '2026-01-02T09:31:12.050Z',
    description: 'When it was handed to the endpoints that subscribe to it',
  })
  relayed_at!: string | null;

  @ApiProperty({ ...NULLABLE_DATE_TIME, example: '2026-01-02T09:31:12.400Z' })
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
  @ApiProperty({
    type: [MerchantEventResponse],
    maxItems: PAGE_LIMIT_MAX,
    description: 'Newest first',
  })
  data!: MerchantEventResponse[];

  @ApiProperty(NEXT_CURSOR)
  next_cursor!: string | null;
}

/** One event on its way to one endpoint. */
export class WebhookMessageResponse {
  @ApiProperty({ ...UUID, example: ENDPOINT_ID })
  endpoint_id!: string;

  @ApiProperty({
    ...ENDPOINT_URL,
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

  @ApiProperty({ ...INTEGER, example: 1, description: 'Attempts since it was (re)queued' })
  attempts!: number;

  @ApiProperty({
    ...NULLABLE_DATE_TIME,
    example: null,
    description: 'When it is sent next; null unless pending',
  })
  next_attempt_at!: string | null;

  @ApiProperty(text(WEBHOOK_ERROR_MAX_LENGTH, { nullable: true, example: null }))
  last_error!: string | null;

  @ApiProperty({ ...NULLABLE_DATE_TIME, example: '2026-01-02T09:31:12.400Z' })
  delivered_at!: string | null;
}

/** One attempt to deliver the event to one endpoint. */
export class WebhookDeliveryResponse {
  @ApiProperty({ ...UUID, example: '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b' })
  id!: string;

  @ApiProperty({
    ...UUID,
    nullable: true,
    example: ENDPOINT_ID,
    description: 'null once the endpoint is deleted, or for attempts older than endpoints',
  })
  endpoint_id!: string | null;

  @ApiProperty({ ...INTEGER, minimum: 1, example: 1 })
  attempt!: number;

  @ApiProperty({
    ...ENDPOINT_URL,
    example: 'https://shop.example/hooks/pesapal',
    description: "The endpoint's URL without credentials or query string",
  })
  url!: string;

  @ApiProperty({
    ...INTEGER,
    minimum: HTTP_STATUS_MIN,
    maximum: HTTP_STATUS_MAX,
    nullable: true,
    example: 200,
    description: "The endpoint's HTTP status; null when no answer (or no valid HTTP status) came",
  })
  response_status!: number | null;

  @ApiProperty(text(WEBHOOK_ERROR_MAX_LENGTH, { nullable: true, example: null }))
  error!: string | null;

  @ApiProperty({
    ...text(EXCERPT_BYTES),
    nullable: true,
    example: 'thanks',
    description: `The start of what the endpoint answered (its first ${EXCERPT_BYTES} bytes)`,
  })
  response_excerpt!: string | null;

  @ApiProperty({ ...INTEGER, example: 84 })
  duration_ms!: number;

  @ApiProperty({ ...DATE_TIME, example: '2026-01-02T09:31:12.316Z' })
  created_at!: string;
}

export class MerchantEventDeliveriesResponse {
  @ApiProperty({ type: MerchantEventResponse })
  event!: MerchantEventResponse;

  @ApiProperty({
    type: [WebhookMessageResponse],
    maxItems: WEBHOOK_ENDPOINTS_LISTED_MAX,
    description: 'Where the event stands with each endpoint it went to',
  })
  endpoints!: WebhookMessageResponse[];

  @ApiProperty({
    type: [WebhookDeliveryResponse],
    maxItems: DELIVERIES_SHOWN,
    description: `Its attempts, oldest first: the latest ${DELIVERIES_SHOWN} when there are more`,
  })
  data!: WebhookDeliveryResponse[];
}

export class RedeliveryResponse {
  @ApiProperty({ ...UUID, example: EVENT_ID })
  event_id!: string;

  @ApiProperty({
    type: 'array',
    items: {
      type: 'string',
      format: UUID.format,
      minLength: UUID.minLength,
      maxLength: UUID.maxLength,
    },
    maxItems: WEBHOOK_ENDPOINTS_LISTED_MAX,
    example: [ENDPOINT_ID],
    description: 'The endpoints it was handed to again (none: no endpoint takes it)',
  })
  endpoints!: string[];
}

/** A webhook endpoint as admins see it: never its secret. */
export class WebhookEndpointResponse {
  @ApiProperty({ ...UUID, example: ENDPOINT_ID })
  id!: string;

  @ApiProperty({
    ...ENDPOINT_URL,
    example: 'https://shop.example/hooks/pesapal',
    description: 'The environment endpoint’s is shown without credentials or query string',
  })
  url!: string;

  @ApiProperty({
    ...text(ENDPOINT_TEXT_MAX_LENGTH),
    example: 'fulfilment',
    description: 'Empty when none was given',
  })
  description!: string;

  @ApiProperty({
    enum: SUBSCRIBABLE_EVENT_TYPES,
    isArray: true,
    maxItems: SUBSCRIBABLE_EVENT_TYPES.length,
    nullable: true,
    example: ['order.completed', 'refund.accepted'],
    description: `The event types it receives; null for every type. Each one of: ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}`,
  })
  event_types!: string[] | null;

  @ApiProperty({ enum: ['enabled', 'disabled'], example: 'enabled' })
  state!: string;

  @ApiProperty({
    ...text(ENDPOINT_TEXT_MAX_LENGTH),
    nullable: true,
    example: null,
    description: 'Why it is disabled (an admin, a 410, days of failures); null when enabled',
  })
  disabled_reason!: string | null;

  @ApiProperty({ ...NULLABLE_DATE_TIME, example: null })
  disabled_at!: string | null;

  @ApiProperty({
    ...NULLABLE_DATE_TIME,
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
    ...NULLABLE_DATE_TIME,
    example: null,
    description: 'Until then deliveries are signed with the previous secret too',
  })
  previous_secret_expires_at!: string | null;

  @ApiProperty({ ...DATE_TIME, example: '2026-01-02T09:00:00.000Z' })
  created_at!: string;

  @ApiProperty({ ...DATE_TIME, example: '2026-01-02T09:00:00.000Z' })
  updated_at!: string;
}

export class WebhookEndpointWithSecretResponse extends WebhookEndpointResponse {
  @ApiProperty({
    type: String,
    pattern: `^${WEBHOOK_SECRET_PREFIX}[A-Za-z0-9+/]+={0,2}$`,
    maxLength: SECRET_MAX_LENGTH,
    // No example: a value of this shape is a secret wherever it appears.
    description: 'The signing secret, shown in this answer only: keep it in the shop',
  })
  secret!: string;
}

export class WebhookEndpointListResponse {
  @ApiProperty({
    type: [WebhookEndpointResponse],
    maxItems: WEBHOOK_ENDPOINTS_LISTED_MAX,
    description: `Oldest first: at most ${WEBHOOK_ENDPOINTS_LIMIT} added by admins, and the one of ORDER_WEBHOOK_URL`,
  })
  data!: WebhookEndpointResponse[];
}

export class WebhookTestResponse {
  @ApiProperty({
    ...UUID,
    example: EVENT_ID,
    description: 'The webhook.test event queued for the endpoint',
  })
  event_id!: string;
}

export class WebhookReplayResponse {
  @ApiProperty({
    ...INTEGER,
    example: 12,
    description: 'Events handed to the endpoint again',
  })
  queued!: number;
}
