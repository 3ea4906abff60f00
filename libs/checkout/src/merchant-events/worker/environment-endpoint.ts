import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';

export const UNSET_REASON = 'ORDER_WEBHOOK_URL is no longer set';

/**
 * ORDER_WEBHOOK_URL as a bootstrap endpoint: one row (source 'environment') that follows the
 * variable at every worker start. It receives every event type; its secrets stay in
 * ORDER_WEBHOOK_SECRET. A new URL re-enables it; an unset one disables it (its pending messages
 * wait, they are not dropped).
 */
@Injectable()
export class EnvironmentEndpoint {
  private readonly logger = new Logger(EnvironmentEndpoint.name);

  constructor(
    private readonly dataSource: DataSource,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  /**
   * Run by the dispatcher before its first round. An event no endpoint takes is skipped as it
   * is written (handedOverAtWrite), so events written before this worker's first sync of a new
   * URL are skipped, not sent (a replay sends them).
   */
  async sync(): Promise<void> {
    const url = this.config.orderWebhookUrl;
    if (!url) {
      await this.dataSource.query(
        `UPDATE webhook_endpoints SET disabled_at = now(), disabled_reason = $1
          WHERE source = 'environment' AND disabled_at IS NULL`,
        [UNSET_REASON],
      );
      return;
    }
    await this.dataSource.query(
      `INSERT INTO webhook_endpoints (url, description, source)
       VALUES ($1, 'ORDER_WEBHOOK_URL', 'environment')
       ON CONFLICT (source) WHERE source = 'environment' DO UPDATE
          SET url = EXCLUDED.url, updated_at = now(),
              disabled_at = CASE WHEN webhook_endpoints.url = EXCLUDED.url
                                  AND webhook_endpoints.disabled_reason IS DISTINCT FROM $2
                                 THEN webhook_endpoints.disabled_at END,
              disabled_reason = CASE WHEN webhook_endpoints.url = EXCLUDED.url
                                      AND webhook_endpoints.disabled_reason IS DISTINCT FROM $2
                                     THEN webhook_endpoints.disabled_reason END,
              failing_since = CASE WHEN webhook_endpoints.url = EXCLUDED.url
                                   THEN webhook_endpoints.failing_since END`,
      [url, UNSET_REASON],
    );
    this.logger.log('ORDER_WEBHOOK_URL is kept as the environment webhook endpoint');
  }
}
