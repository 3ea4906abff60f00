import { Injectable } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { RedisConnection, withTimeout } from '@app/queues';

@Injectable()
export class RedisHealthIndicator {
  constructor(
    private readonly redis: RedisConnection,
    private readonly indicators: HealthIndicatorService,
  ) {}

  async check(key = 'redis'): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check(key);
    const client = this.redis.client;
    if (!client) return indicator.up({ backend: 'postgres (no Redis configured)' });
    try {
      const answer = await withTimeout(client.ping(), 1000, 'redis ping');
      return answer === 'PONG'
        ? indicator.up()
        : indicator.down({ message: `unexpected ${answer}` });
    } catch (error) {
      return indicator.down({ message: error instanceof Error ? error.message : String(error) });
    }
  }
}
