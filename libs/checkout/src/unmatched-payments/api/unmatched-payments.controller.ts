import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import { AdminRoutes, CallerOperator, Requires } from '../../operators/access-guards';
import { UUID } from '../../http/documented-schemas';
import { Operator } from '../../operators/operator';
import { ListUnmatchedPaymentsQuery, MatchUnmatchedPaymentDto } from './unmatched-payments.dto';
import {
  MatchResultResponse,
  UnmatchedPaymentPageResponse,
  UnmatchedPaymentResult,
} from './unmatched-payments-responses';
import { UnmatchedPaymentsService } from './unmatched-payments.service';

const ID_PARAM = { name: 'id', ...UUID, description: "The payment's id (anything else is 404)" };

/**
 * Payments without an order: listed, and matched to an order of ours. Refunding one is a refund
 * (POST /v1/admin/unmatched-payments/{id}/refund, in the refunds feature).
 */
@ApiTags('admin: payments without an order')
@ApiBearerAuth()
@AdminRoutes()
@Requires('admin:read')
@Controller('v1/admin/unmatched-payments')
export class UnmatchedPaymentsController {
  constructor(private readonly payments: UnmatchedPaymentsService) {}

  @Get()
  @ApiOperation({
    summary: 'Payments the gateway took for no order of ours, newest first (filter by status)',
  })
  @ApiOkResponse({ type: UnmatchedPaymentPageResponse })
  list(@Query() query: ListUnmatchedPaymentsQuery) {
    return this.payments.list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One payment without an order' })
  @ApiParam(ID_PARAM)
  @ApiOkResponse({ type: UnmatchedPaymentResult })
  @ApiNotFoundResponse({ description: 'unmatched_payment_not_found' })
  async find(@Param('id') id: string) {
    return { unmatched_payment: await this.payments.find(id) };
  }

  @Post(':id/match')
  @Requires('operations:write')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Settle a payment onto an order of ours it pays (same account, amount and currency; not paid yet): the order completes',
  })
  @ApiParam(ID_PARAM)
  @ApiOkResponse({ type: MatchResultResponse })
  @ApiNotFoundResponse({ description: 'unmatched_payment_not_found or order_not_found' })
  @ApiConflictResponse({
    description:
      'unmatched_payment_settled (error.unmatched_payment says how), order_paid (completed or reversed), order_closed (cancelled or expired), reference_in_use (the payment was made under a reference that names another order of ours: error.order)',
  })
  @ApiUnprocessableEntityResponse({
    description: 'unmatched_payment_mismatch: another amount, currency or account than the order',
  })
  match(
    @Param('id') id: string,
    @Body() body: MatchUnmatchedPaymentDto,
    @CallerOperator() caller: Operator,
  ) {
    return this.payments.match(id, body.reference.trim(), caller);
  }
}
