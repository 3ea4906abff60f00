import { Injectable } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { RedisConnection, withTimeout } from '@app/queues';
import { HEALTH_MESSAGE_MAX_LENGTH, NO_REDIS_BACKEND } from './health-responses';

@Injectable()
export class RedisHealthIndicator {
  constructor(
    private readonly redis: RedisConnection,
    private readonly indicators: HealthIndicatorService,
  ) {}

  async check(key = 'redis'): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check(key);
    const client = this.redis.client;
    if (!client) return indicator.up({ backend: NO_REDIS_BACKEND });
    try {
      const answer = await withTimeout(client.ping(), 1000, 'redis ping');
      return answer === 'PONG'
        ? indicator.up()
        : indicator.down({ message: `unexpected ${answer}`.slice(0, HEALTH_MESSAGE_MAX_LENGTH) });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return indicator.down({ message: message.slice(0, HEALTH_MESSAGE_MAX_LENGTH) });
    }
  }
}
