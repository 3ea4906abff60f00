import {
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  ParseIntPipe,
  Post,
  Query,
  UseGuards,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import { ApiKeyIdentity } from '../../http/api-keys';
import { INTEGER, UUID } from '../../http/documented-schemas';
import { ATTEMPTS_PER_ORDER_LIMIT } from '../../orders/order-view';
import { AdminAccessGuard, CallerKey, Requires } from '../../http/api-key.guards';
import { DoublePaymentRefunds } from '../double-payment-refunds';
import {
  CreateRefundDto,
  ListRefundsQuery,
  RefundDoublePaymentDto,
  ResolveRefundDto,
} from './refund.dto';
import { RefundListService } from './refund-list.service';
import {
  AdminDoublePaymentRefundResult,
  AdminRefundPage,
  AdminRefundResult,
} from './refund-responses';
import { RefundService } from './refund.service';

/**
 * Any name an order is found by (OrderRepository.findByAnyReference), as orders' ORDER_NAME: the
 * longest, push_merchant_reference, is varchar(100). Nothing longer names an order.
 */
const REFERENCE_PARAM = {
  name: 'reference',
  type: String,
  minLength: 1,
  maxLength: 100,
  description:
    "The shop's reference, or an order_tracking_id or push_merchant_reference of any attempt",
  example: 'ORDER-2041',
};

@ApiTags('admin: refunds')
@ApiBearerAuth()
@UseGuards(AdminAccessGuard)
@Requires('admin:read')
@Controller('v1/admin')
export class RefundsController {
  constructor(
    private readonly refunds: RefundService,
    private readonly listing: RefundListService,
    private readonly doublePayments: DoublePaymentRefunds,
  ) {}

  /** 201 with the refund as recorded: accepted, rejected by the gateway, or unknown (timeout). */
  @Post('orders/:reference/refunds')
  @Requires('refunds:request')
  @ApiOperation({
    summary: "Refund an order's payment: in full, or in part with confirm_partial (cards only)",
  })
  @ApiParam(REFERENCE_PARAM)
  @ApiCreatedResponse({
    type: AdminRefundResult,
    description:
      'The refund as recorded: accepted, rejected by the gateway, or unknown (no answer; resolve it later)',
  })
  @ApiConflictResponse({
    description:
      'order_not_refundable (not paid), or refund_already_requested (error.refund is the existing one)',
  })
  @ApiUnprocessableEntityResponse({
    description:
      'refund_exceeds_payment, partial_refund_not_allowed (not a card payment), or partial_refund_not_confirmed',
  })
  async request(
    @Param('reference') reference: string,
    @Body() body: CreateRefundDto,
    @CallerKey() caller: ApiKeyIdentity,
  ) {
    const refund = await this.refunds.request(
      reference,
      {
        amount: body.amount,
        reason: body.reason,
        requestedBy: body.requested_by,
        confirmPartial: body.confirm_partial === true,
      },
      caller,
    );
    return { refund };
  }

  /**
   * A double payment, in one action: the second payment (the earlier attempt that paid an order
   * already paid) is refunded in full. 201 with its refund: accepted, rejected or unknown.
   */
  @Post('orders/:reference/attempts/:attempt/refund')
  @Requires('refunds:request')
  @ApiOperation({
    summary:
      "Refund a double payment: the earlier attempt's payment on an order already paid, in full",
  })
  @ApiParam(REFERENCE_PARAM)
  @ApiParam({
    name: 'attempt',
    // Attempt numbers run from 1 to ATTEMPTS_PER_ORDER_LIMIT: no other number names an attempt.
    schema: { ...INTEGER, minimum: 1, maximum: ATTEMPTS_PER_ORDER_LIMIT, example: 1 },
    description: 'The attempt that paid second',
  })
  @ApiCreatedResponse({
    type: AdminDoublePaymentRefundResult,
    description: 'The refund as recorded: accepted, rejected, or unknown',
  })
  @ApiConflictResponse({
    description:
      'order_not_refundable (the attempt is not a second payment of the paid order), or refund_already_requested (error.refund is the existing one)',
  })
  async refundDoublePayment(
    @Param('reference') reference: string,
    @Param('attempt', ParseIntPipe) attempt: number,
    @Body() body: RefundDoublePaymentDto,
    @CallerKey() caller: ApiKeyIdentity,
  ) {
    const refund = await this.doublePayments.refund(
      reference,
      attempt,
      { reason: body.reason, requestedBy: body.requested_by },
      caller.name,
    );
    return { refund };
  }

  @Get('refunds')
  @ApiOperation({ summary: 'Browse refunds, newest first, each with its order reference' })
  @ApiOkResponse({ type: AdminRefundPage })
  list(@Query() query: ListRefundsQuery) {
    return this.listing.list(query);
  }

  @Post('refunds/:id/resolve')
  @Requires('refunds:approve')
  @HttpCode(200)
  // A refund's id; anything but a uuid names no refund (404, RefundService.findRefund).
  @ApiParam({ name: 'id', ...UUID })
  @ApiOperation({
    summary:
      "Record a refund's outcome learnt elsewhere (after a timeout, or from the merchant dashboard)",
  })
  @ApiOkResponse({ type: AdminRefundResult })
  @ApiConflictResponse({
    description: 'refund_transition_not_allowed (error.refund is the refund as it is)',
  })
  async resolve(
    @Param('id') id: string,
    @Body() body: ResolveRefundDto,
    @CallerKey() caller: ApiKeyIdentity,
  ) {
    return { refund: await this.refunds.resolve(id, body.status, body.note, caller) };
  }
}
