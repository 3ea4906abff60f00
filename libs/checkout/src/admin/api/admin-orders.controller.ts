import { cutText } from '@app/domain';
import {
  applyDecorators,
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
} from '@nestjs/common';
import {
  ApiBadGatewayResponse,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiGatewayTimeoutResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { ApiKeyIdentity } from '../../http/api-keys';
import { AdminRoutes, CallerKey, Requires } from '../../operators/access-guards';
import { ORDER_NAME, REVIEW_REASON_MAX_LENGTH } from '../../orders/order-view';
import { OrderCancelService } from '../../orders/order-cancel.service';
import { OrderSyncService } from '../../orders/order-sync.service';
import { CancelBody, ListOrdersQuery, StuckQuery } from './admin.dto';
import { AdminOrdersService } from './admin-orders.service';
import {
  AdminOrderDetail,
  AdminOrderPage,
  AdminOrderSyncResult,
  type AdminOrderSyncAnswer,
  AdminStuckOrderPage,
} from './admin-order-responses';
import { StuckOrdersService } from './stuck-orders.service';

/** Any name an order is found by (AdminOrdersService.find), or its id (36 characters). */
const REFERENCE_PARAM = {
  name: 'reference',
  ...ORDER_NAME,
  description:
    "The shop's reference, an order_tracking_id or push_merchant_reference (of any attempt), or the order's id",
};

/** Errors of the routes that call the gateway (the answer's shape is the common error one). */
const ApiGatewayErrors = () =>
  applyDecorators(
    ApiBadGatewayResponse({ description: 'gateway_error: the gateway refused the call' }),
    ApiGatewayTimeoutResponse({
      description: 'gateway_timeout: the gateway did not answer in time',
    }),
  );

@ApiTags('admin: orders')
@ApiBearerAuth()
@AdminRoutes()
@Requires('admin:read')
@Controller('v1/admin/orders')
export class AdminOrdersController {
  constructor(
    private readonly orders: AdminOrdersService,
    private readonly stuck: StuckOrdersService,
    private readonly sync: OrderSyncService,
    private readonly cancellation: OrderCancelService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Search and filter orders, newest first, with counts per status' })
  @ApiOkResponse({ type: AdminOrderPage })
  list(@Query() query: ListOrdersQuery) {
    return this.orders.list(query);
  }

  /** Declared before :reference so that "stuck" is never read as an order reference. */
  @Get('stuck')
  @ApiOperation({
    summary:
      'Orders that need an operator: pending too long, flagged for review, creation outcome unknown, or a refund not confirmed',
  })
  @ApiOkResponse({ type: AdminStuckOrderPage })
  stuckOrders(@Query() query: StuckQuery) {
    return this.stuck.list(query.pending_minutes ?? 30, query.limit ?? 200, query.cursor);
  }

  @Get(':reference')
  @ApiOperation({ summary: 'One order in full: customer, payment attempts, refund and timeline' })
  @ApiParam(REFERENCE_PARAM)
  @ApiOkResponse({ type: AdminOrderDetail })
  detail(@Param('reference') reference: string) {
    return this.orders.detail(reference);
  }

  /** Looks the order up at the gateway now and applies the answer (source 'admin'). */
  @Post(':reference/sync')
  @Requires('operations:write')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Look the order up at the gateway now and apply the answer, as a notification would',
  })
  @ApiParam(REFERENCE_PARAM)
  @ApiOkResponse({ type: AdminOrderSyncResult })
  @ApiGatewayErrors()
  async syncNow(@Param('reference') reference: string): Promise<AdminOrderSyncAnswer> {
    const order = await this.orders.find(reference);
    const result = await this.sync.sync(order, 'admin');
    return {
      result: result.kind,
      // As the order's review_reason keeps it.
      ...(result.kind === 'flagged'
        ? { reason: cutText(result.reason, REVIEW_REASON_MAX_LENGTH) }
        : {}),
      ...(await this.orders.detail(order.id)),
    };
  }

  @Post(':reference/cancel')
  @Requires('operations:write')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel an unpaid order at the gateway (audited with the note)' })
  @ApiParam(REFERENCE_PARAM)
  @ApiOkResponse({ type: AdminOrderDetail, description: 'The order as it is now, cancelled' })
  @ApiConflictResponse({
    description:
      'order_paid (refund it instead), order_not_cancellable, order_not_submitted (no gateway order yet), or cancel_refused by the gateway',
  })
  @ApiGatewayErrors()
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
