import { createHash } from 'node:crypto';
import { Body, Controller, Headers, Post, Res, UseGuards } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiGatewayTimeoutResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiForbiddenResponse,
  ApiUnauthorizedResponse,
  ApiUnprocessableEntityResponse,
  ApiBadGatewayResponse,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CallerKey, Requires, ShopKeyGuard } from '../../operators/access-guards';
import { HotRoute } from '../../http/hot-routes';
import type { ApiKeyIdentity } from '../../http/api-keys';
import { CheckoutResult, CheckoutService } from './checkout.service';
import { CreateCheckoutDto, CreateMobileMoneyCheckoutDto } from './dto/create-checkout.dto';
import {
  ErrorResponse,
  HostedCheckoutResponse,
  IDEMPOTENCY_KEY_SCHEMA,
  MobileMoneyCheckoutResponse,
} from './dto/checkout-responses';
import { IdempotencyService } from './idempotency.service';
import { StatusTokens } from './live/status-tokens';

const IDEMPOTENCY_HEADER = {
  name: 'Idempotency-Key',
  required: false,
  schema: IDEMPOTENCY_KEY_SCHEMA,
  description:
    'Same key and body within 24 h: the first answer again, without a second payment. Same key, other body: 422.',
};

/**
 * The global hooks a checkout still needs: its request log line, the empty-body rewrite (a
 * Content-Type without a body is refused with every missing field, not Fastify's own 400) and
 * CORS for the listed origins. It reads no cookie.
 */
const CHECKOUT_NEEDS = { requestLog: true, emptyJsonBody: true, crossOrigin: true };

/** POST /v1/checkouts and /v1/checkouts/mobile-money. */
@ApiTags('checkouts')
@ApiBearerAuth()
@ApiHeader(IDEMPOTENCY_HEADER)
@ApiBadRequestResponse({ type: ErrorResponse, description: 'Every failing field, with a reason' })
@ApiUnauthorizedResponse({ type: ErrorResponse, description: 'Missing key, or not a shop key' })
@ApiForbiddenResponse({
  type: ErrorResponse,
  description: "forbidden: a scoped API key without the route's scope (error.permission)",
})
@ApiConflictResponse({ type: ErrorResponse, description: 'Reference used for another amount' })
@ApiUnprocessableEntityResponse({ type: ErrorResponse, description: 'Idempotency-Key re-used' })
@ApiBadGatewayResponse({ type: ErrorResponse, description: "The gateway's code and messages" })
@ApiGatewayTimeoutResponse({ type: ErrorResponse, description: 'Order kept; reconciled later' })
@UseGuards(ShopKeyGuard)
@Requires('checkout:write')
@Controller('v1/checkouts')
export class CheckoutsController {
  constructor(
    private readonly checkouts: CheckoutService,
    private readonly idempotency: IdempotencyService,
    private readonly statusTokens: StatusTokens,
  ) {}

  @Post()
  @HotRoute(CHECKOUT_NEEDS)
  @ApiOperation({
    summary: 'Start a payment on the hosted page; send the customer to redirect_url',
  })
  @ApiCreatedResponse({ type: HostedCheckoutResponse })
  @ApiOkResponse({ type: HostedCheckoutResponse, description: 'The order this reference made' })
  async createHosted(
    @Body() dto: CreateCheckoutDto,
    @CallerKey() caller: ApiKeyIdentity,
    @Headers('idempotency-key') key: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    const answer = await this.once(caller, 'POST /v1/checkouts', key, dto, (reference) =>
      this.checkouts.createHosted(dto, caller.name, reference),
    );
    void reply.status(answer.status);
    return this.statusTokens.besideAnswer(answer.body);
  }

  @Post('mobile-money')
  @HotRoute(CHECKOUT_NEEDS)
  @ApiOperation({ summary: "Push a mobile money PIN prompt to the customer's phone" })
  @ApiCreatedResponse({ type: MobileMoneyCheckoutResponse })
  @ApiOkResponse({
    type: MobileMoneyCheckoutResponse,
    description: 'The order this reference made',
  })
  async createMobileMoney(
    @Body() dto: CreateMobileMoneyCheckoutDto,
    @CallerKey() caller: ApiKeyIdentity,
    @Headers('idempotency-key') key: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    const answer = await this.once(
      caller,
      'POST /v1/checkouts/mobile-money',
      key,
      dto,
      (reference) => this.checkouts.createMobileMoney(dto, caller.name, reference),
    );
    void reply.status(answer.status);
    return this.statusTokens.besideAnswer(answer.body);
  }

  /**
   * With a key, a body without a reference gets one derived from the key: a retry after a
   * timeout then names the same order instead of starting a second payment.
   */
  private once(
    caller: ApiKeyIdentity,
    route: string,
    key: string | undefined,
    body: object,
    create: (reference?: string) => Promise<CheckoutResult>,
  ): Promise<{ status: number; body: unknown }> {
    if (key === undefined) return create();
    const scope = `${caller.fingerprint}:${route}`;
    IdempotencyService.checkKey(key);
    const reference = `chk_${createHash('sha256').update(`${scope}\n${key}`).digest('hex').slice(0, 24)}`;
    return this.idempotency.run({ scope, key, body }, () => create(reference));
  }
}
