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
import { UnmatchedPaymentLedger } from '../../unmatched-payments/unmatched-payment-ledger';
import { AdminRefundResponse } from '../refund-admin-view';
import { RefundUnmatchedPaymentDto } from './refund.dto';
import { RefundApprovalResponse } from './refund-approvals';
import { RefundService } from './refund.service';

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

/**
 * Refunds a payment without an order in full. The payment is first adopted as a completed order
 * of ours (UnmatchedPaymentLedger.adopt), then refunded by the one refund path every order takes:
 * one refund per payment under the order's lock, the approval threshold and its second person,
 * the single gateway call, the follow-up until the reversal is seen, the audit trail and the
 * merchant events. A refund path of its own for these payments would repeat all of that.
 */
@ApiTags('admin: payments without an order')
@ApiBearerAuth()
@AdminRoutes()
@Requires('refunds:request')
@Controller('v1/admin/unmatched-payments')
export class UnmatchedPaymentRefundsController {
  constructor(
    private readonly ledger: UnmatchedPaymentLedger,
    private readonly refunds: RefundService,
  ) {}

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
    const reason = body.reason.trim();
    const order = await this.ledger.adopt(id, reason, caller);
    const result = await this.refunds.request(
      order.merchantReference,
      { amount: order.paidAmount ?? order.amount, reason, confirmPartial: false },
      caller,
    );
    const answer = { order: { reference: order.merchantReference }, ...result };
    void reply.status('refund_approval' in result ? 202 : 201);
    return answer;
  }
}
