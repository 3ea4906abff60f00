import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  UseGuards,
} from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyIdentity } from '../../http/api-keys';
import { AdminKeyGuard, CallerKey } from '../../http/api-key.guards';
import {
  CreateWebhookEndpointBody,
  ReplayBody,
  RotateSecretBody,
  UpdateWebhookEndpointBody,
} from './webhook-endpoints.dto';
import { WebhookEndpointsService } from './webhook-endpoints.service';

@ApiTags('admin: webhook endpoints')
@ApiBearerAuth()
@UseGuards(AdminKeyGuard)
@Controller('v1/admin/webhook-endpoints')
export class WebhookEndpointsController {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  @Get()
  @ApiOperation({ summary: 'The shop’s webhook endpoints, oldest first (never their secrets)' })
  list() {
    return this.endpoints.list();
  }

  @Post()
  @ApiOperation({ summary: 'Add an endpoint; its signing secret is in this answer only' })
  create(@Body() body: CreateWebhookEndpointBody, @CallerKey() caller: ApiKeyIdentity) {
    return this.endpoints.create(body, caller.name);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One endpoint' })
  get(@Param('id') id: string) {
    return this.endpoints.get(id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Change its URL, description or filter, or disable/enable it' })
  update(
    @Param('id') id: string,
    @Body() body: UpdateWebhookEndpointBody,
    @CallerKey() caller: ApiKeyIdentity,
  ) {
    return this.endpoints.update(id, body, caller.name);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove an endpoint and its undelivered messages' })
  async remove(@Param('id') id: string, @CallerKey() caller: ApiKeyIdentity): Promise<void> {
    await this.endpoints.remove(id, caller.name);
  }

  @Post(':id/rotate-secret')
  @ApiOperation({ summary: 'New secret, shown once; the old one signs too during the overlap' })
  rotate(
    @Param('id') id: string,
    @Body() body: RotateSecretBody,
    @CallerKey() caller: ApiKeyIdentity,
  ) {
    return this.endpoints.rotateSecret(id, body, caller.name);
  }

  @Post(':id/test')
  @HttpCode(202)
  @ApiOperation({ summary: 'Send a webhook.test event to this endpoint' })
  test(@Param('id') id: string, @CallerKey() caller: ApiKeyIdentity) {
    return this.endpoints.sendTest(id, caller.name);
  }

  @Post(':id/replay')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send every subscribed event since a time again (undelivered ones by default)',
  })
  replay(@Param('id') id: string, @Body() body: ReplayBody, @CallerKey() caller: ApiKeyIdentity) {
    return this.endpoints.replay(id, body, caller.name);
  }
}
