import { Body, Controller, Get, Headers, Param, Patch, Post, Query, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { UUID } from '../../../http/documented-schemas';
import type { ApiKeyIdentity } from '../../../http/api-keys';
import {
  CallerKey,
  CallerOperator,
  Requires,
  ShopOrOperatorRoutes,
} from '../../../operators/access-guards';
import { Operator, operatorLabel } from '../../../operators/operator';
import { ErrorResponse, IDEMPOTENCY_KEY_SCHEMA } from '../dto/checkout-responses';
import { IdempotencyService } from '../idempotency.service';
import {
  CreatePaymentLinkDto,
  ListPaymentLinksQuery,
  UpdatePaymentLinkDto,
} from './payment-links.dto';
import {
  PaymentLinkDetailResponse,
  PaymentLinkPageResponse,
  PaymentLinkResult,
} from './payment-link-responses';
import { PaymentLinksService } from './payment-links.service';

const ID_PARAM = { name: 'id', ...UUID, description: "The link's id (anything else is 404)" };

/** Payment links: a page that takes payments without a shop, made by a shop or an operator. */
@ApiTags('payment links')
@ApiBearerAuth()
@ApiBadRequestResponse({ type: ErrorResponse, description: 'Every failing field, with a reason' })
@ApiForbiddenResponse({
  type: ErrorResponse,
  description: 'forbidden: a scoped key or an operator without payment_links:manage',
})
@ShopOrOperatorRoutes()
@Requires('payment_links:manage')
@Controller('v1/payment-links')
export class PaymentLinksController {
  constructor(
    private readonly links: PaymentLinksService,
    private readonly idempotency: IdempotencyService,
  ) {}

  @Post()
  @ApiOperation({ summary: 'Make a payment link: its url is the page customers pay on' })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    schema: IDEMPOTENCY_KEY_SCHEMA,
    description: 'Same key and body within 24 h: the first answer again, not a second link',
  })
  @ApiCreatedResponse({ type: PaymentLinkResult, description: 'The link, active' })
  @ApiConflictResponse({ type: ErrorResponse, description: 'reference_prefix_in_use' })
  @ApiUnprocessableEntityResponse({ type: ErrorResponse, description: 'Idempotency-Key re-used' })
  async create(
    @Body() dto: CreatePaymentLinkDto,
    @CallerKey() caller: ApiKeyIdentity,
    @CallerOperator() operator: Operator,
    @Headers('idempotency-key') key: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    const make = async () => ({
      status: 201,
      body: { payment_link: await this.links.create(dto, operatorLabel(operator)) },
    });
    const answer =
      key === undefined
        ? await make()
        : await this.idempotency.run(
            { scope: `${caller.fingerprint}:POST /v1/payment-links`, key, body: dto },
            make,
          );
    void reply.status(answer.status);
    return answer.body;
  }

  @Get()
  @ApiOperation({ summary: 'Payment links, newest first (filter by status and currency)' })
  @ApiOkResponse({ type: PaymentLinkPageResponse, description: 'A cursor page of links' })
  list(@Query() query: ListPaymentLinksQuery) {
    return this.links.list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One payment link, with its latest payments' })
  @ApiParam(ID_PARAM)
  @ApiOkResponse({ type: PaymentLinkDetailResponse, description: 'The link and its payments' })
  @ApiNotFoundResponse({ type: ErrorResponse, description: 'payment_link_not_found' })
  find(@Param('id') id: string) {
    return this.links.find(id);
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Change its description or expiry, or deactivate it (active: false) for good',
  })
  @ApiParam(ID_PARAM)
  @ApiOkResponse({ type: PaymentLinkResult, description: 'The link as changed' })
  @ApiNotFoundResponse({ type: ErrorResponse, description: 'payment_link_not_found' })
  async update(@Param('id') id: string, @Body() dto: UpdatePaymentLinkDto) {
    return { payment_link: await this.links.update(id, dto) };
  }
}
