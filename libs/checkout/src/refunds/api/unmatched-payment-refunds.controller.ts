import { Body, Controller, Param, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiNotFoundResponse,
  ApiOperation,
  ApiParam,
  ApiProperty,
  ApiTags,
} from '@nestjs/swagger';
import { AdminRoutes, CallerOperator, Requires } from '../../operators/access-guards';
import { UUID } from '../../http/documented-schemas';
import { Operator } from '../../operators/operator';
import { AdminRefundResponse } from '../refund-admin-view';
import { RefundUnmatchedPaymentDto } from './refund.dto';
import { RefundApprovalResponse } from './refund-approvals';
import { UnmatchedPaymentRefunds } from './unmatched-payment-refunds';

/** The order a payment without an order was adopted as, to be refunded through. */
class AdoptedOrder {
  @ApiProperty({
    type: String,
    maxLength: 50,
    example: 'UNMATCHED-b8a6c3f0-1d2e-4c5b-9a7f-0e1d2c3b4a59',
  })
  reference!: string;
}

class UnmatchedPaymentRefundResult {
  @ApiProperty({ type: AdoptedOrder })
  order!: AdoptedOrder;

  @ApiProperty({ type: AdminRefundResponse })
  refund!: AdminRefundResponse;
}

class UnmatchedPaymentRefundApprovalResult {
  @ApiProperty({ type: AdoptedOrder })
  order!: AdoptedOrder;

  @ApiProperty({ type: RefundApprovalResponse })
  refund_approval!: RefundApprovalResponse;
}

/** Refunds a payment without an order in full, through the refund path (UnmatchedPaymentRefunds). */
@ApiTags('admin: payments without an order')
@ApiBearerAuth()
@AdminRoutes()
@Requires('refunds:request')
@Controller('v1/admin/unmatched-payments')
export class UnmatchedPaymentRefundsController {
  constructor(private readonly payments: UnmatchedPaymentRefunds) {}

  @Post(':id/refund')
  @ApiOperation({
    summary:
      'Refund a payment without an order, in full (above REFUND_APPROVAL_THRESHOLD it waits for a second person)',
  })
  @ApiParam({ name: 'id', ...UUID, description: "The payment's id (anything else is 404)" })
  @ApiExtraModels(UnmatchedPaymentRefundResult, UnmatchedPaymentRefundApprovalResult)
  @ApiCreatedResponse({
    type: UnmatchedPaymentRefundResult,
    description:
      'The refund as recorded on the adopted order: accepted, rejected by the gateway, or unknown (resolve it later)',
  })
  @ApiAcceptedResponse({
    type: UnmatchedPaymentRefundApprovalResult,
    description: 'Above the threshold: a request waiting for a second person; nothing sent yet',
  })
  @ApiNotFoundResponse({ description: 'unmatched_payment_not_found' })
  @ApiConflictResponse({
    description:
      'unmatched_payment_settled (matched to an order: refund that order), or refund_already_requested (error.refund or error.refund_approval is the existing one)',
  })
  async refund(
    @Param('id') id: string,
    @Body() body: RefundUnmatchedPaymentDto,
    @CallerOperator() caller: Operator,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const result = await this.payments.refund(id, body.reason.trim(), caller);
    void reply.status('refund_approval' in result ? 202 : 201);
    return result;
  }
}
