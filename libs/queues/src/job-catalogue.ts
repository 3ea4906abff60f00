import { JobsOptions } from 'bullmq';

/**
 * Every job the service runs: its queue, its data, and its options, in one place. Job ids give
 * de-duplication where a job must not be queued twice for the same thing.
 */
export const QUEUES = {
  notifications: 'notifications',
  orderSync: 'order-sync',
  registration: 'ipn-registration',
  merchantEvents: 'merchant-events',
  maintenance: 'maintenance',
  // Its own queue so that the admin worker's processor never picks up another feature's sweep.
  reconciliation: 'reconciliation',
} as const;
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

export interface JobData {
  /**
   * Verify one stored notification by looking its order up. orderKey (the tracking id it names)
   * de-duplicates: one job per order waits, one more may follow the active one. attempt counts
   * the row's earlier tries (the inbox relay queues it again after a lost job or an unmatched try).
   */
  'verify-notification': { notificationId: string; orderKey: string; attempt: number };
  /** Look a pending order up now (poll schedule, return redirect, admin sync). */
  'sync-order': { orderId: string; source: 'poll' | 'return' | 'admin' | 'ipn' };
  /** Register (or re-read) the service's IPN URL at the gateway. */
  'register-ipn': { url: string; method: 'GET' | 'POST' };
  /** Deliver one merchant event to the shop's webhook. */
  'deliver-event': { eventId: string };
  /** Periodic sweeps: due polls, unqueued notifications, unrelayed outbox rows. */
  sweep: Record<string, never>;
  /** Nightly reconciliation of recent orders against the gateway. */
  reconcile: { sinceHours: number };
}
export type JobName = keyof JobData;

export const JOB_QUEUE: { [N in JobName]: QueueName } = {
  'verify-notification': QUEUES.notifications,
  'sync-order': QUEUES.orderSync,
  'register-ipn': QUEUES.registration,
  'deliver-event': QUEUES.merchantEvents,
  sweep: QUEUES.maintenance,
  reconcile: QUEUES.reconciliation,
};

const RETRYING: JobsOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 2000 },
  removeOnComplete: { age: 3600, count: 10_000 },
  // Failed jobs stay listed (the dead-letter view) for a week.
  removeOnFail: { age: 7 * 24 * 3600 },
};

export function jobOptions<N extends JobName>(name: N, data: JobData[N]): JobsOptions {
  switch (name) {
    case 'verify-notification': {
      const notification = data as JobData['verify-notification'];
      return {
        ...RETRYING,
        jobId: `notification-${notification.notificationId}-${notification.attempt}`,
        // Every notification's row covers it; the queue only needs one lookup per order at a time.
        removeOnComplete: true,
        deduplication: { id: `verify-order-${notification.orderKey}`, keepLastIfActive: true },
      };
    }
    case 'sync-order':
      return { ...RETRYING, attempts: 3 };
    case 'register-ipn':
      return { ...RETRYING, attempts: 20, backoff: { type: 'fixed', delay: 9000 } };
    case 'deliver-event':
      // A day of retries: 2 s doubling reaches the one-hour cap after ~1.1 h (11 retries); 23
      // hourly retries more make 24 h, so 35 attempts in all.
      return {
        ...RETRYING,
        attempts: 35,
        jobId: `event-${(data as JobData['deliver-event']).eventId}`,
        backoff: { type: 'merchant-webhook' },
      };
    default:
      return { ...RETRYING, attempts: 1 };
  }
}
