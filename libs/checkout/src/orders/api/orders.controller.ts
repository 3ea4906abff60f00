import { Controller, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { CallerKey, ShopKeyGuard } from '../../http/api-key.guards';
import type { ApiKeyIdentity } from '../../http/api-keys';
import { ErrorResponse, OrderResponse } from './dto/checkout-responses';
import { OrderCancelService } from '../order-cancel.service';
import { OrderQueryService, OrderWithTimeline } from './order-query.service';

const REFERENCE_PARAM = {
  name: 'reference',
  description: "The shop's reference, the order_tracking_id, or push's push_merchant_reference",
  example: 'ORDER-2041',
};

/** GET /v1/orders/:reference and POST /v1/orders/:reference/cancel. */
@ApiTags('orders')
@ApiBearerAuth()
@ApiParam(REFERENCE_PARAM)
@ApiUnauthorizedResponse({ type: ErrorResponse })
@ApiNotFoundResponse({ type: ErrorResponse })
@UseGuards(ShopKeyGuard)
@Controller('v1/orders')
export class OrdersController {
  constructor(
    private readonly query: OrderQueryService,
    private readonly cancellation: OrderCancelService,
  ) {}

  @Get(':reference')
  @ApiOperation({ summary: 'The order, its payment, refund and timeline' })
  @ApiOkResponse({ type: OrderResponse })
  find(@Param('reference') reference: string): Promise<OrderWithTimeline> {
    return this.query.view(reference);
  }

  @Post(':reference/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel an unpaid order at the gateway' })
  @ApiOkResponse({ type: OrderResponse })
  @ApiConflictResponse({ type: ErrorResponse, description: 'The order is paid' })
  async cancel(
    @Param('reference') reference: string,
    @CallerKey() caller: ApiKeyIdentity,
  ): Promise<OrderWithTimeline> {
    const order = await this.query.find(reference);
    const cancelled = await this.cancellation.cancel(order, { source: 'api', actor: caller.name });
    return this.query.viewOf(cancelled);
  }
}
