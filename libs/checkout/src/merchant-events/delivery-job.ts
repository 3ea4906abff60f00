import { JobsOptions } from 'bullmq';
import { ServiceConfig } from '@app/config';
import { jobOptions } from '@app/queues';
import { MERCHANT_WEBHOOK_BACKOFF } from './webhook-backoff';

/**
 * Options of a deliver-event job. The relay uses the catalogue's job id (event-<id>), so a row
 * relayed twice after a crash is queued once; a redelivery passes a suffix to get a fresh job.
 */
export function deliveryJobOptions(
  eventId: string,
  config: ServiceConfig,
  redeliverySuffix?: string,
): JobsOptions {
  const options = jobOptions('deliver-event', { eventId });
  return {
    ...options,
    jobId: redeliverySuffix ? `${options.jobId}-${redeliverySuffix}` : options.jobId,
    backoff: { type: MERCHANT_WEBHOOK_BACKOFF, delay: config.merchantWebhookBackoffMs },
  };
}

/** A redelivery job carries a suffixed id; only the relay's own job may find the event delivered. */
export function isRedelivery(jobId: string | undefined, eventId: string): boolean {
  return jobId !== jobOptions('deliver-event', { eventId }).jobId;
}
