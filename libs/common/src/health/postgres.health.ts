import { Injectable } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { DataSource } from 'typeorm';
import { withTimeout } from '@app/queues';
import { HEALTH_MESSAGE_MAX_LENGTH } from './health-responses';

/** terminus's own TypeORM check reports "down" without saying why; this one names the reason. */
@Injectable()
export class PostgresHealthIndicator {
  constructor(
    private readonly dataSource: DataSource,
    private readonly indicators: HealthIndicatorService,
  ) {}

  async check(key = 'postgres', timeoutMs = 1000): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check(key);
    try {
      await withTimeout(this.dataSource.query('SELECT 1'), timeoutMs, 'postgres');
      return indicator.up();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return indicator.down({ message: message.slice(0, HEALTH_MESSAGE_MAX_LENGTH) });
    }
  }
}
