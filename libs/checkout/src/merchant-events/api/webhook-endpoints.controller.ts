import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { UUID } from '../../http/documented-schemas';
import { ApiKeyIdentity } from '../../http/api-keys';
import { AdminRoutes, CallerKey, Requires } from '../../operators/access-guards';
import {
  CreateWebhookEndpointBody,
  ReplayBody,
  RotateSecretBody,
  UpdateWebhookEndpointBody,
} from './webhook-endpoints.dto';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import {
  WebhookEndpointListResponse,
  WebhookEndpointResponse,
  WebhookEndpointWithSecretResponse,
  WebhookReplayResponse,
  WebhookTestResponse,
} from './merchant-events-responses';

const MANAGED_BY_ENVIRONMENT =
  'webhook_endpoint_managed_by_environment: the ORDER_WEBHOOK_URL endpoint is changed through its environment';

/** An endpoint's id: anything else is no endpoint (404). */
const EndpointIdParam = ApiParam({ name: 'id', ...UUID, description: "The endpoint's id" });

@ApiTags('admin: webhook endpoints')
@ApiBearerAuth()
@AdminRoutes()
@Requires('webhooks:manage')
@Controller('v1/admin/webhook-endpoints')
export class WebhookEndpointsController {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  @Get()
  @Requires('admin:read')
  @ApiOperation({ summary: 'The shop’s webhook endpoints, oldest first (never their secrets)' })
  @ApiOkResponse({ type: WebhookEndpointListResponse, description: 'Every endpoint' })
  list() {
    return this.endpoints.list();
  }

  @Post()
  @ApiOperation({ summary: 'Add an endpoint; its signing secret is in this answer only' })
  @ApiCreatedResponse({
    type: WebhookEndpointWithSecretResponse,
    description: 'Created, enabled, with its signing secret',
  })
  @ApiConflictResponse({
    description:
      'webhook_endpoints_limit_reached: as many endpoints as there may be; delete one first',
  })
  create(@Body() body: CreateWebhookEndpointBody, @CallerKey() caller: ApiKeyIdentity) {
    return this.endpoints.create(body, caller.name);
  }

  @Get(':id')
  @Requires('admin:read')
  @EndpointIdParam
  @ApiOperation({ summary: 'One endpoint' })
  @ApiOkResponse({ type: WebhookEndpointResponse, description: 'The endpoint' })
  get(@Param('id') id: string) {
    return this.endpoints.get(id);
  }

  @Patch(':id')
  @EndpointIdParam
  @ApiOperation({ summary: 'Change its URL, description or filter, or disable/enable it' })
  @ApiOkResponse({ type: WebhookEndpointResponse, description: 'The endpoint as changed' })
  @ApiConflictResponse({
    description: `${MANAGED_BY_ENVIRONMENT} (enabling or disabling it is allowed)`,
  })
  update(
    @Param('id') id: string,
    @Body() body: UpdateWebhookEndpointBody,
    @CallerKey() caller: ApiKeyIdentity,
  ) {
    return this.endpoints.update(id, body, caller.name);
  }

  @Delete(':id')
  @EndpointIdParam
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove an endpoint and its undelivered messages' })
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiConflictResponse({ description: MANAGED_BY_ENVIRONMENT })
  async remove(@Param('id') id: string, @CallerKey() caller: ApiKeyIdentity): Promise<void> {
    await this.endpoints.remove(id, caller.name);
  }

  @Post(':id/rotate-secret')
  @EndpointIdParam
  @ApiOperation({ summary: 'New secret, shown once; the old one signs too during the overlap' })
  @ApiCreatedResponse({
    type: WebhookEndpointWithSecretResponse,
    description: 'The endpoint with its new secret',
  })
  @ApiConflictResponse({ description: MANAGED_BY_ENVIRONMENT })
  rotate(
    @Param('id') id: string,
    @Body() body: RotateSecretBody,
    @CallerKey() caller: ApiKeyIdentity,
  ) {
    return this.endpoints.rotateSecret(id, body, caller.name);
  }

  @Post(':id/test')
  @EndpointIdParam
  @HttpCode(202)
  @ApiOperation({ summary: 'Send a webhook.test event to this endpoint' })
  @ApiAcceptedResponse({ type: WebhookTestResponse, description: 'Queued; the worker sends it' })
  @ApiConflictResponse({ description: 'webhook_endpoint_disabled: enable the endpoint first' })
  test(@Param('id') id: string, @CallerKey() caller: ApiKeyIdentity) {
    return this.endpoints.sendTest(id, caller.name);
  }

  @Post(':id/replay')
  @EndpointIdParam
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send every subscribed event since a time again (undelivered ones by default)',
  })
  @ApiAcceptedResponse({
    type: WebhookReplayResponse,
    description: 'Queued; the worker sends them',
  })
  replay(@Param('id') id: string, @Body() body: ReplayBody, @CallerKey() caller: ApiKeyIdentity) {
    return this.endpoints.replay(id, body, caller.name);
  }
}
