import { Controller, Get } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService } from '@nestjs/terminus';
import { PostgresHealthIndicator } from './postgres.health';
import { RedisHealthIndicator } from './redis.health';

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
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** 200 when Postgres and Redis answer, 503 naming the one that does not. */
  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([
      () => this.database.check('postgres'),
      () => this.redis.check('redis'),
    ]);
  }
}
