import { Inject, Injectable, Logger } from '@nestjs/common';
import { Job, MinimalJob } from 'bullmq';
import { DataSource } from 'typeorm';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { OutboxEventEntity, WebhookDeliveryEntity } from '@app/persistence';
import { DeliverEventData, QueueJob, QueueJobHandler } from '@app/queues';
import { GAVE_UP_PREFIX, SKIPPED_NO_URL } from '../delivery-state';
import { merchantWebhookBackoff } from '../webhook-backoff';
import { displayUrl, postWebhook } from './webhook-sender';
import { webhookBody } from '../webhook-signature';

export type DeliveryOutcome = 'delivered' | 'already_delivered' | 'skipped' | 'missing';

/** Thrown for a failed attempt so that BullMQ retries it on the merchant-webhook backoff. */
export class WebhookAttemptFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookAttemptFailed';
  }
}

/**
 * Delivers one merchant event per job, at least once: every attempt is logged in
 * webhook_deliveries, a 2xx marks the event delivered, anything else is thrown for a retry.
 */
@Injectable()
@QueueJob('deliver-event')
export class DeliverEventJob implements QueueJobHandler<'deliver-event'> {
  private readonly logger = new Logger(DeliverEventJob.name);

  constructor(
    private readonly dataSource: DataSource,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  /** Exponential from MERCHANT_WEBHOOK_BACKOFF_MS, capped at an hour. */
  backoff(attemptsMade: number, job: MinimalJob): number {
    return merchantWebhookBackoff(attemptsMade, undefined, undefined, job);
  }

  async run(data: DeliverEventData, job: Job<DeliverEventData>): Promise<DeliveryOutcome> {
    const { eventId } = data;
    const outbox = this.dataSource.getRepository(OutboxEventEntity);
    const event = await outbox.findOneBy({ id: eventId });
    if (!event) {
      this.logger.warn(`merchant event ${eventId} no longer exists; nothing to deliver`);
      return 'missing';
    }
    // A second relay of the same row (job id reuse after the first job expired) sends nothing.
    if (event.deliveredAt && !data.redelivery) return 'already_delivered';

    const url = this.config.orderWebhookUrl;
    if (!url) {
      await outbox.update({ id: eventId }, { lastError: SKIPPED_NO_URL });
      this.logger.warn(`merchant event ${eventId} (${event.type}) skipped: no ORDER_WEBHOOK_URL`);
      return 'skipped';
    }

    const attempt = await this.countAttempt(eventId);
    const result = await postWebhook({
      url,
      eventId,
      eventType: event.type,
      body: webhookBody(event),
      secrets: this.config.orderWebhookSecrets,
      timeoutMs: this.config.merchantWebhookTimeoutMs,
    });
    await this.dataSource.getRepository(WebhookDeliveryEntity).insert({
      eventId,
      attempt,
      url: displayUrl(url),
      responseStatus: result.status,
      error: result.error,
      durationMs: result.durationMs,
    });

    if (result.ok) {
      await outbox.update({ id: eventId }, { deliveredAt: new Date(), lastError: null });
      this.logger.log(
        `merchant event ${eventId} (${event.type}) delivered on attempt ${attempt}: HTTP ${result.status} in ${result.durationMs} ms`,
      );
      return 'delivered';
    }

    const lastTry = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const error = result.error ?? 'failed';
    await outbox.update(
      { id: eventId },
      { lastError: lastTry ? `${GAVE_UP_PREFIX}${error}` : error },
    );
    this.logger.warn(
      `merchant event ${eventId} (${event.type}) attempt ${attempt} failed: ${error}${lastTry ? '; no attempts left' : ''}`,
    );
    throw new WebhookAttemptFailed(error);
  }

  /** The event's attempt number across retries and redeliveries. */
  private async countAttempt(eventId: string): Promise<number> {
    const result = await this.dataSource
      .createQueryBuilder()
      .update(OutboxEventEntity)
      .set({ attempts: () => 'attempts + 1' })
      .where('id = :eventId', { eventId })
      .returning('attempts')
      .execute();
    const rows = result.raw as { attempts: number }[];
    return rows[0]?.attempts ?? 1;
  }
}
