import { Controller, Get } from '@nestjs/common';
import {
  ApiExcludeController,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { HealthCheck, HealthCheckService } from '@nestjs/terminus';
import {
  HEALTH_NO_CACHE_HEADER,
  HealthLiveResponse,
  HealthNotReadyResponse,
  HealthReadyResponse,
} from './health-responses';
import { PostgresHealthIndicator } from './postgres.health';
import { RedisHealthIndicator } from './redis.health';

// Probes for the platform (Kubernetes, load balancers), unlimited by design: not part of the shop's
// contract (openapi.json); docs/deployment.md describes them.
@ApiExcludeController()
@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: PostgresHealthIndicator,
    private readonly redis: RedisHealthIndicator,
  ) {}

  /** The process is up; says nothing of its dependencies. */
  @Get('live')
  @ApiOperation({ summary: 'Liveness: the process answers' })
  @ApiOkResponse({ type: HealthLiveResponse, description: 'Alive' })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** 200 when Postgres and Redis answer, 503 naming the one that does not. */
  @Get('ready')
  // The answers are documented below, exactly; terminus's generic schemas are left out.
  @HealthCheck({ noCache: true, swaggerDocumentation: false })
  @ApiOperation({ summary: 'Readiness: Postgres and Redis answer' })
  @ApiOkResponse({
    type: HealthReadyResponse,
    description: 'Ready: every check is up',
    headers: HEALTH_NO_CACHE_HEADER,
  })
  @ApiServiceUnavailableResponse({
    type: HealthNotReadyResponse,
    description: 'Not ready: a check is down (named in error), or the process is shutting down',
    headers: HEALTH_NO_CACHE_HEADER,
  })
  ready() {
    return this.health.check([
      () => this.database.check('postgres'),
      () => this.redis.check('redis'),
    ]);
  }
}
