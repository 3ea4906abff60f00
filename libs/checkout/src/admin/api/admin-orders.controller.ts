import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ApiKeyIdentity } from '../../http/api-keys';
import { AdminKeyGuard, CallerKey } from '../../http/api-key.guards';
import { OrderCancelService } from '../../orders/order-cancel.service';
import { OrderSyncService } from '../../orders/order-sync.service';
import { CancelBody, ListOrdersQuery, StuckQuery } from './admin.dto';
import { AdminOrdersService } from './admin-orders.service';
import { StuckOrdersService } from './stuck-orders.service';

@ApiTags('admin: orders')
@ApiBearerAuth()
@UseGuards(AdminKeyGuard)
@Controller('v1/admin/orders')
export class AdminOrdersController {
  constructor(
    private readonly orders: AdminOrdersService,
    private readonly stuck: StuckOrdersService,
    private readonly sync: OrderSyncService,
    private readonly cancellation: OrderCancelService,
  ) {}

  @Get()
  list(@Query() query: ListOrdersQuery) {
    return this.orders.list(query);
  }

  /** Declared before :reference so that "stuck" is never read as an order reference. */
  @Get('stuck')
  stuckOrders(@Query() query: StuckQuery) {
    return this.stuck.list(query.pending_minutes ?? 30, query.limit ?? 200, query.cursor);
  }

  @Get(':reference')
  detail(@Param('reference') reference: string) {
    return this.orders.detail(reference);
  }

  /** Looks the order up at the gateway now and applies the answer (source 'admin'). */
  @Post(':reference/sync')
  @HttpCode(200)
  async syncNow(@Param('reference') reference: string) {
    const order = await this.orders.find(reference);
    const result = await this.sync.sync(order, 'admin');
    return {
      result: result.kind,
      ...(result.kind === 'flagged' ? { reason: result.reason } : {}),
      ...(await this.orders.detail(order.id)),
    };
  }

  @Post(':reference/cancel')
  @HttpCode(200)
  async cancel(
    @Param('reference') reference: string,
    @Body() body: CancelBody,
    @CallerKey() caller: ApiKeyIdentity,
  ) {
    const order = await this.orders.find(reference);
    await this.cancellation.cancel(order, { source: 'admin', actor: caller.name, note: body.note });
    return this.orders.detail(order.id);
  }
}
