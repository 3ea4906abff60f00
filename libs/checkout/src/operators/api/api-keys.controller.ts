import {
  Body,
  Controller,
  Delete,
  Get,
  Header,
  HttpCode,
  Param,
  Post,
  Query,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { AdminRoutes, CallerOperator, Requires } from '../access-guards';
import { UUID } from '../../http/documented-schemas';
import { Operator } from '../operator';
import { ApiKeysService } from './api-keys.service';
import { CreateApiKeyBody, ListApiKeysQuery, RollApiKeyBody } from './api-keys.dto';
import {
  ApiKeyCreatedResponse,
  ApiKeyPageResponse,
  ApiKeyRevokedResponse,
  ApiKeyRolledResponse,
} from './operators-responses';

/** Scoped API keys for machines: made, listed, rolled and revoked by people holding api_keys:manage. */
@ApiTags('admin: api keys')
@ApiBearerAuth()
@AdminRoutes()
@Requires('api_keys:manage')
@Controller('v1/admin/api-keys')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Post()
  @ApiOperation({ summary: 'Make a scoped key: its secret is in this answer only' })
  @ApiCreatedResponse({ type: ApiKeyCreatedResponse })
  @ApiForbiddenResponse({ description: 'forbidden: a scope the caller does not hold' })
  @Header('Cache-Control', 'no-store')
  create(@Body() body: CreateApiKeyBody, @CallerOperator() caller: Operator) {
    return this.keys.create(caller, {
      name: body.name,
      scopes: body.scopes,
      expiresAt: body.expires_at ? new Date(body.expires_at) : null,
    });
  }

  @Get()
  @ApiOperation({ summary: 'The keys, newest first (prefix, scopes, last use; never a secret)' })
  @ApiOkResponse({ type: ApiKeyPageResponse })
  list(@Query() query: ListApiKeysQuery) {
    return this.keys.list(query);
  }

  @Post(':id/roll')
  @HttpCode(201)
  @ApiParam({ name: 'id', ...UUID })
  @ApiOperation({
    summary: 'A new secret for the key; the old one keeps working for grace_minutes',
  })
  @ApiCreatedResponse({ type: ApiKeyRolledResponse })
  @ApiConflictResponse({
    description: 'api_key_revoked: the key is revoked, expired, or already rolled',
  })
  @Header('Cache-Control', 'no-store')
  roll(@Param('id') id: string, @Body() body: RollApiKeyBody, @CallerOperator() caller: Operator) {
    return this.keys.roll(caller, id, body.grace_minutes);
  }

  @Delete(':id')
  @ApiParam({ name: 'id', ...UUID })
  @ApiOperation({ summary: 'Revoke a key: refused from the next request on' })
  @ApiOkResponse({ type: ApiKeyRevokedResponse })
  async revoke(@Param('id') id: string, @CallerOperator() caller: Operator) {
    return { api_key: await this.keys.revoke(caller, id) };
  }
}
