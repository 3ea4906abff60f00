import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { UUID } from '../../http/documented-schemas';
import { ApiKeyIdentity } from '../../http/api-keys';
import { AdminRoutes, CallerKey, Requires } from '../../operators/access-guards';
import { ListMerchantEventsQuery } from './merchant-events.dto';
import { MerchantEventsAdminService } from './merchant-events-admin.service';
import {
  MerchantEventDeliveriesResponse,
  MerchantEventPageResponse,
  RedeliveryResponse,
} from './merchant-events-responses';
import { RedeliverBody } from './webhook-endpoints.dto';

/** An event's id (its webhook-id): anything else is no event (404). */
const EventIdParam = ApiParam({ name: 'id', ...UUID, description: "The event's id (webhook-id)" });

@ApiTags('admin: merchant events')
@ApiBearerAuth()
@AdminRoutes()
@Requires('admin:read')
@Controller('v1/admin/events')
export class MerchantEventsAdminController {
  constructor(private readonly events: MerchantEventsAdminService) {}

  @Get()
  @ApiOperation({ summary: 'Merchant events (outbox) with their delivery state, newest first' })
  @ApiOkResponse({ type: MerchantEventPageResponse, description: 'A page of events' })
  list(@Query() query: ListMerchantEventsQuery) {
    return this.events.list({
      type: query.type,
      delivered: query.delivered === undefined ? undefined : query.delivered === 'true',
      order: query.order,
      limit: query.limit ?? 50,
      cursor: query.cursor,
    });
  }

  @Get(':id/deliveries')
  @EventIdParam
  @ApiOperation({
    summary: 'Where one merchant event stands with each endpoint, and every attempt, oldest first',
  })
  @ApiOkResponse({
    type: MerchantEventDeliveriesResponse,
    description: 'The event, its endpoints and its attempts',
  })
  deliveries(@Param('id') id: string) {
    return this.events.deliveries(id);
  }

  @Post(':id/redeliver')
  @Requires('webhooks:manage')
  @EventIdParam
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send a merchant event again (same webhook-id, fresh retries), to one endpoint or all',
  })
  @ApiAcceptedResponse({
    type: RedeliveryResponse,
    description: 'Queued again; the worker delivers it',
  })
  redeliver(
    @Param('id') id: string,
    @Body() body: RedeliverBody,
    @CallerKey() caller: ApiKeyIdentity,
  ) {
    return this.events.redeliver(id, body.endpoint_id, caller.name);
  }
}
