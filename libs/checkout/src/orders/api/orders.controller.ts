import { Body, Controller, Get, Headers, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBadGatewayResponse,
  ApiBadRequestResponse,
  ApiGatewayTimeoutResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  ApiForbiddenResponse,
  ApiUnauthorizedResponse,
  ApiExtraModels,
  getSchemaPath,
} from '@nestjs/swagger';
import { CallerKey, Requires, ShopKeyGuard } from '../../operators/access-guards';
import { HotRoute } from '../../http/hot-routes';
import type { ApiKeyIdentity } from '../../http/api-keys';
import {
  ErrorResponse,
  HostedCheckoutResponse,
  IDEMPOTENCY_KEY_SCHEMA,
  MobileMoneyCheckoutResponse,
  ORDER_NAME,
  OrderResponse,
} from './dto/checkout-responses';
import { StartAttemptDto } from './dto/start-attempt.dto';
import { IdempotencyService } from './idempotency.service';
import { StatusTokens } from './live/status-tokens';
import { OrderCancelService } from '../order-cancel.service';
import { OrderQueryService, OrderWithTimeline } from './order-query.service';
import { PaymentAttemptService } from './payment-attempts.service';

const REFERENCE_PARAM = {
  name: 'reference',
  ...ORDER_NAME,
  description: "The shop's reference, the order_tracking_id, or push's push_merchant_reference",
  example: 'ORDER-2041',
};

/** GET /v1/orders/:reference, POST /v1/orders/:reference/cancel and …/attempts. */
@ApiTags('orders')
@ApiBearerAuth()
@ApiExtraModels(HostedCheckoutResponse, MobileMoneyCheckoutResponse)
@ApiParam(REFERENCE_PARAM)
@ApiUnauthorizedResponse({ type: ErrorResponse })
@ApiForbiddenResponse({
  type: ErrorResponse,
  description: "forbidden: a scoped API key without the route's scope (error.permission)",
})
@ApiNotFoundResponse({ type: ErrorResponse })
@UseGuards(ShopKeyGuard)
@Requires('checkout:write')
@Controller('v1/orders')
export class OrdersController {
  constructor(
    private readonly query: OrderQueryService,
    private readonly cancellation: OrderCancelService,
    private readonly attempts: PaymentAttemptService,
    private readonly idempotency: IdempotencyService,
    private readonly statusTokens: StatusTokens,
  ) {}

  @Get(':reference')
  // Its request log line and CORS (a shop page may read a status); a GET has no body to parse and
  // it reads no cookie.
  @HotRoute({ requestLog: true, crossOrigin: true })
  @Requires('orders:read')
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
  @ApiBadGatewayResponse({ type: ErrorResponse, description: "The gateway's code and messages" })
  @ApiGatewayTimeoutResponse({ type: ErrorResponse, description: 'The gateway did not answer' })
  async cancel(
    @Param('reference') reference: string,
    @CallerKey() caller: ApiKeyIdentity,
  ): Promise<OrderWithTimeline> {
    const order = await this.query.find(reference);
    const cancelled = await this.cancellation.cancel(order, { source: 'api', actor: caller.name });
    return this.query.viewOf(cancelled);
  }

  @Post(':reference/attempts')
  @HttpCode(201)
  @ApiOperation({
    summary:
      'Try again: a new payment attempt (hosted page or PIN prompt) on a failed order, or a new prompt over a pending one',
  })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    schema: IDEMPOTENCY_KEY_SCHEMA,
    description: 'Same key and body within 24 h: the first answer again, without a second attempt',
  })
  @ApiCreatedResponse({
    schema: {
      oneOf: [
        { $ref: getSchemaPath(HostedCheckoutResponse) },
        { $ref: getSchemaPath(MobileMoneyCheckoutResponse) },
      ],
    },
    description:
      'As a checkout answers (redirect_url, or the push details), with the attempt number',
  })
  @ApiBadRequestResponse({ type: ErrorResponse })
  @ApiBadGatewayResponse({ type: ErrorResponse, description: "The gateway's code and messages" })
  @ApiGatewayTimeoutResponse({
    type: ErrorResponse,
    description: 'The gateway did not answer; the attempt is kept and reconciled',
  })
  @ApiConflictResponse({
    type: ErrorResponse,
    description:
      'order_paid, order_closed (cancelled, expired, reversed), attempt_still_payable (a hosted page still open, or a prompt the gateway would not cancel), order_not_submitted, attempts_exhausted (20 attempts: start a new order)',
  })
  async startAttempt(
    @Param('reference') reference: string,
    @Body() dto: StartAttemptDto,
    @CallerKey() caller: ApiKeyIdentity,
    @Headers('idempotency-key') key: string | undefined,
  ): Promise<unknown> {
    const start = () => this.attempts.start(reference, dto, caller.name);
    const answer =
      key === undefined
        ? await start()
        : await this.idempotency.run(
            {
              scope: `${caller.fingerprint}:POST /v1/orders/${reference}/attempts`,
              key,
              body: dto,
            },
            start,
          );
    return this.statusTokens.besideAnswer(answer.body);
  }
}
