import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { HeaderObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/**
 * Documentation of the probes' answers: /health/live's own, and /health/ready's terminus report
 * (HealthCheckService: `info` holds the checks that are up, `error` those that are down, `details`
 * both), with the checks of PostgresHealthIndicator and RedisHealthIndicator.
 */

/**
 * The longest reason a check gives for being down (the driver's error message, cut where the
 * indicators write it). libs/common stands apart from libs/checkout: its bounds are its own.
 */
export const HEALTH_MESSAGE_MAX_LENGTH = 500;
/** What RedisHealthIndicator reports as its backend when no Redis is configured. */
export const NO_REDIS_BACKEND = 'postgres (no Redis configured)';

export class HealthLiveResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' })
  status!: 'ok';
}

export class PostgresHealthResponse {
  @ApiProperty({ enum: ['up', 'down'], example: 'up' })
  status!: 'up' | 'down';

  @ApiPropertyOptional({
    type: String,
    maxLength: HEALTH_MESSAGE_MAX_LENGTH,
    example: 'postgres: no answer within 1000 ms',
    description: 'Why it is down; only when down',
  })
  message?: string;
}

export class RedisHealthResponse {
  @ApiProperty({ enum: ['up', 'down'], example: 'up' })
  status!: 'up' | 'down';

  @ApiPropertyOptional({
    type: String,
    maxLength: HEALTH_MESSAGE_MAX_LENGTH,
    example: 'redis ping: no answer within 1000 ms',
    description: 'Why it is down; only when down',
  })
  message?: string;

  @ApiPropertyOptional({
    type: String,
    enum: [NO_REDIS_BACKEND],
    example: NO_REDIS_BACKEND,
    description: 'Only when no Redis is configured: the queues run on Postgres, and this is up',
  })
  backend?: string;
}

/** Every check, by name. */
export class HealthChecksResponse {
  @ApiProperty({ type: PostgresHealthResponse })
  postgres!: PostgresHealthResponse;

  @ApiProperty({ type: RedisHealthResponse })
  redis!: RedisHealthResponse;
}

/** Some of the checks, by name: those that are up (info) or down (error). */
export class SomeHealthChecksResponse {
  @ApiPropertyOptional({ type: PostgresHealthResponse })
  postgres?: PostgresHealthResponse;

  @ApiPropertyOptional({ type: RedisHealthResponse })
  redis?: RedisHealthResponse;
}

export class HealthReadyResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' })
  status!: 'ok';

  @ApiProperty({
    type: SomeHealthChecksResponse,
    description: 'The checks that are up: every one',
    example: { postgres: { status: 'up' }, redis: { status: 'up' } },
  })
  info!: SomeHealthChecksResponse;

  @ApiProperty({
    type: SomeHealthChecksResponse,
    description: 'The checks that are down: none',
    example: {},
  })
  error!: SomeHealthChecksResponse;

  @ApiProperty({
    type: HealthChecksResponse,
    example: { postgres: { status: 'up' }, redis: { status: 'up' } },
  })
  details!: HealthChecksResponse;
}

export class HealthNotReadyResponse {
  @ApiProperty({
    enum: ['error', 'shutting_down'],
    example: 'error',
    description: 'error: a check is down; shutting_down: the process is stopping',
  })
  status!: 'error' | 'shutting_down';

  @ApiProperty({
    type: SomeHealthChecksResponse,
    description: 'The checks that are up',
    example: { postgres: { status: 'up' } },
  })
  info!: SomeHealthChecksResponse;

  @ApiProperty({
    type: SomeHealthChecksResponse,
    description: 'The checks that are down, each with its reason',
    example: { redis: { status: 'down', message: 'redis ping: no answer within 1000 ms' } },
  })
  error!: SomeHealthChecksResponse;

  @ApiProperty({
    type: HealthChecksResponse,
    example: {
      postgres: { status: 'up' },
      redis: { status: 'down', message: 'redis ping: no answer within 1000 ms' },
    },
  })
  details!: HealthChecksResponse;
}

/** @HealthCheck()'s header: a probe's answer is never cached. */
export const HEALTH_NO_CACHE_HEADER: Record<string, HeaderObject> = {
  'Cache-Control': {
    description: 'Never cached',
    // The value @HealthCheck() (@nestjs/terminus) sets.
    schema: {
      type: 'string',
      enum: ['no-cache, no-store, must-revalidate'],
      example: 'no-cache, no-store, must-revalidate',
    },
  },
};
