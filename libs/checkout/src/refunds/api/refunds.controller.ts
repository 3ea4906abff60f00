import {
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  ParseIntPipe,
  Post,
  Query,
  Res,
} from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import {
  ApiBearerAuth,
  ApiConflictResponse,
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiForbiddenResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  ApiUnprocessableEntityResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import { INTEGER, UUID } from '../../http/documented-schemas';
import { ATTEMPTS_PER_ORDER_LIMIT, ORDER_NAME } from '../../orders/order-view';
import { AdminRoutes, CallerOperator, Requires } from '../../operators/access-guards';
import { Operator } from '../../operators/operator';
import {
  CreateRefundDto,
  DeclineRefundApprovalDto,
  ListRefundApprovalsQuery,
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
import { RefundApprovalPage, RefundApprovalResult, RefundApprovals } from './refund-approvals';

/** 201 for a refund made, 202 for a request waiting for a second person. */
function answered<T extends object>(reply: FastifyReply, result: T): T {
  void reply.status('refund_approval' in result ? 202 : 201);
  return result;
}

/** Any name an order is found by (OrderRepository.findByAnyReference). */
const REFERENCE_PARAM = {
  name: 'reference',
  ...ORDER_NAME,
  description:
    "The shop's reference, or an order_tracking_id or push_merchant_reference of any attempt",
};

@ApiTags('admin: refunds')
@ApiBearerAuth()
@AdminRoutes()
@Requires('admin:read')
@Controller('v1/admin')
export class RefundsController {
  constructor(
    private readonly refunds: RefundService,
    private readonly listing: RefundListService,
    private readonly approvals: RefundApprovals,
  ) {}

  /** 201 with the refund as recorded: accepted, rejected by the gateway, or unknown (timeout). */
  @Post('orders/:reference/refunds')
  @Requires('refunds:request')
  @ApiOperation({
    summary: "Refund an order's payment: in full, or in part with confirm_partial (cards only)",
  })
  @ApiParam(REFERENCE_PARAM)
  @ApiAcceptedResponse({
    type: RefundApprovalResult,
    description:
      'Above REFUND_APPROVAL_THRESHOLD: recorded as a request waiting for a second person; nothing is sent to the gateway yet',
  })
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
    @CallerOperator() caller: Operator,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const result = await this.refunds.request(
      reference,
      { amount: body.amount, reason: body.reason, confirmPartial: body.confirm_partial === true },
      caller,
    );
    return answered(reply, result);
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
  @ApiAcceptedResponse({
    type: RefundApprovalResult,
    description: 'Above REFUND_APPROVAL_THRESHOLD: a request waiting for a second person',
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
    @CallerOperator() caller: Operator,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return answered(
      reply,
      await this.refunds.requestDoublePayment(reference, attempt, body.reason, caller),
    );
  }

  @Get('refund-approvals')
  @ApiOperation({
    summary: 'Refund requests waiting for a second person (or approved, declined, expired)',
  })
  @ApiOkResponse({ type: RefundApprovalPage })
  listApprovals(@Query() query: ListRefundApprovalsQuery) {
    return this.approvals.list(query);
  }

  @Post('refunds/:id/approve')
  @Requires('refunds:approve')
  @HttpCode(201)
  @ApiParam({ name: 'id', ...UUID, description: "The waiting request's id (the refund takes it)" })
  @ApiOperation({
    summary: "Approve another person's refund request: the refund is made and sent once",
  })
  @ApiExtraModels(AdminRefundResult, AdminDoublePaymentRefundResult)
  @ApiCreatedResponse({
    description: "The refund made (a double payment's, when the request named an attempt)",
    schema: {
      anyOf: [
        { $ref: getSchemaPath(AdminRefundResult) },
        { $ref: getSchemaPath(AdminDoublePaymentRefundResult) },
      ],
    },
  })
  @ApiForbiddenResponse({ description: 'self_approval_refused: the requester cannot approve' })
  @ApiConflictResponse({
    description:
      'refund_approval_not_pending, refund_approval_expired, or refund_already_requested',
  })
  approve(@Param('id') id: string, @CallerOperator() caller: Operator) {
    return this.refunds.approve(id, caller);
  }

  @Post('refunds/:id/reject')
  @Requires('refunds:approve')
  @HttpCode(200)
  @ApiParam({ name: 'id', ...UUID })
  @ApiOperation({ summary: 'Decline a refund request, with the reason' })
  @ApiOkResponse({ type: RefundApprovalResult })
  @ApiConflictResponse({ description: 'refund_approval_not_pending or refund_approval_expired' })
  async reject(
    @Param('id') id: string,
    @Body() body: DeclineRefundApprovalDto,
    @CallerOperator() caller: Operator,
  ) {
    return { refund_approval: await this.refunds.decline(id, caller, body.reason.trim()) };
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
    @CallerOperator() caller: Operator,
  ) {
    return { refund: await this.refunds.resolve(id, body.status, body.note, caller) };
  }
}
