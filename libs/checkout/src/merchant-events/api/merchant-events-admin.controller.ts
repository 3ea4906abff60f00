import { Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyIdentity } from '../../http/api-keys';
import { AdminKeyGuard, CallerKey } from '../../http/api-key.guards';
import { ListMerchantEventsQuery } from './merchant-events.dto';
import { MerchantEventsAdminService } from './merchant-events-admin.service';

@ApiTags('admin: merchant events')
@ApiBearerAuth()
@UseGuards(AdminKeyGuard)
@Controller('v1/admin/events')
export class MerchantEventsAdminController {
  constructor(private readonly events: MerchantEventsAdminService) {}

  @Get()
  @ApiOperation({ summary: 'Merchant events (outbox) with their delivery state, newest first' })
  list(@Query() query: ListMerchantEventsQuery) {
    return this.events.list({
      type: query.type,
      delivered: query.delivered === undefined ? undefined : query.delivered === 'true',
      order: query.order,
      limit: query.limit ?? 50,
      before: query.before,
    });
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: 'Every delivery attempt of one merchant event, oldest first' })
  deliveries(@Param('id') id: string) {
    return this.events.deliveries(id);
  }

  @Post(':id/redeliver')
  @HttpCode(202)
  @ApiOperation({ summary: 'Send a merchant event again (same event id, fresh retries)' })
  redeliver(@Param('id') id: string, @CallerKey() caller: ApiKeyIdentity) {
    return this.events.redeliver(id, caller.name);
  }
}
