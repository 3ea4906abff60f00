import { Controller, Get, Headers, Inject, Param, Query, Res } from '@nestjs/common';
import {
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { releaseRequestContext } from '@app/common';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { OrderEntity, OrderRepository } from '@app/persistence';
import { ApiKeyRing, bearerKey } from '../../../http/api-keys';
import { CheckoutError } from '../../../errors/checkout-error';
import { UUID } from '../../../http/documented-schemas';
import { ErrorResponse, ORDER_NAME, STATUS_TOKEN } from '../dto/checkout-responses';
import { OrderStatusFeed } from './order-status-feed';
import { OrderStatusStream } from './order-status-stream';
import { StatusTokens } from './status-tokens';

/**
 * GET /v1/orders/:reference/stream: the order's status, live, as Server-Sent Events. The shop
 * authenticates with its key; the customer's browser (EventSource sends no headers of its own)
 * with the order's `status_token` in the query. A wrong or missing credential is 401 whether or
 * not the order exists, so the route tells a stranger nothing.
 */
@ApiTags('orders')
@Controller('v1/orders')
export class OrderStreamController {
  private readonly shopKeys: ApiKeyRing;

  constructor(
    private readonly orders: OrderRepository,
    private readonly feed: OrderStatusFeed,
    private readonly tokens: StatusTokens,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {
    this.shopKeys = new ApiKeyRing(config.shopApiKeys);
  }

  @Get(':reference/stream')
  @ApiOperation({
    summary: 'Live status (Server-Sent Events): a `status` event per change, closed when final',
  })
  @ApiParam({ name: 'reference', ...ORDER_NAME, description: 'Any name of the order' })
  // Any other text is refused as a wrong token (401: StatusTokens.verify compares it whole).
  @ApiQuery({
    name: 'status_token',
    required: false,
    ...STATUS_TOKEN,
    description: "The checkout's status_token, for a customer's browser (instead of the shop key)",
  })
  // An event's id is its timeline entry's (a uuid); any other value resumes nothing (the history).
  @ApiHeader({
    name: 'Last-Event-ID',
    required: false,
    schema: { ...UUID, type: 'string' },
    description: 'Resume after this event (EventSource sends it when it reconnects)',
  })
  @ApiQuery({
    name: 'last_event_id',
    required: false,
    ...UUID,
    description: 'As Last-Event-ID, for a client that cannot send the header',
  })
  @ApiOkResponse({
    description:
      'Server-Sent Events: a `status` event per change ({reference, status, from_status, source, at, details}), the history first; ends once the status is final',
    // Events, not one document: their format is described above and in docs/shop-api.md.
    content: { 'text/event-stream': {} },
  })
  @ApiNoContentResponse({
    description: 'Resumed after the final event: nothing more will come (EventSource stops)',
  })
  @ApiUnauthorizedResponse({ type: ErrorResponse })
  async stream(
    @Param('reference') reference: string,
    @Query('status_token') statusToken: string | undefined,
    @Query('last_event_id') lastEventIdQuery: string | undefined,
    @Headers('authorization') authorization: string | undefined,
    @Headers('last-event-id') lastEventIdHeader: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    // A customer's browser reads the refusals too (401, 404), not only the stream: the
    // token in the URL is the credential, never a cookie, so any shop page may read them.
    void reply.header('access-control-allow-origin', '*');
    const order = await this.authorised(reference, authorization, statusToken);
    // From here on the answer is written by hand; Fastify leaves it alone. The headers set so far
    // (the rate limiter's, CORS) go out with that head.
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined) reply.raw.setHeader(name, value);
    }
    reply.hijack();
    const lastEventId = lastEventIdHeader?.trim() || lastEventIdQuery?.trim() || null;
    const stream: OrderStatusStream = new OrderStatusStream(
      order.id,
      order.merchantReference,
      reply.raw,
      lastEventId,
      this.config.orderStreamHeartbeatMs,
      () => this.feed.unsubscribe(stream),
    );
    try {
      await this.feed.subscribe(stream, order.version);
      // The feed writes the stream from here on, for as long as the customer waits.
      releaseRequestContext(reply.raw);
    } catch {
      // The database did not answer before anything was sent: the browser retries.
      this.feed.unsubscribe(stream);
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(503, { 'Content-Type': 'application/json', 'Retry-After': '2' });
      }
      reply.raw.end(
        JSON.stringify({ error: { code: 'database_unavailable', message: 'try again shortly' } }),
      );
    }
  }

  private async authorised(
    reference: string,
    authorization: string | undefined,
    statusToken: string | undefined,
  ): Promise<OrderEntity> {
    const presented = bearerKey(authorization);
    if (presented) {
      if (!this.shopKeys.identify(presented)) throw CheckoutError.unauthenticated();
      const order = await this.orders.findByAnyReference(reference);
      if (!order) throw CheckoutError.notFound('order', reference);
      return order;
    }
    const refused = new CheckoutError(
      'unauthenticated',
      "the order's status_token (or a shop key in Authorization: Bearer <key>) is required",
    );
    if (!statusToken) throw refused;
    const order = await this.orders.findByAnyReference(reference);
    if (!order || !this.tokens.verify(order.merchantReference, statusToken)) throw refused;
    return order;
  }
}
