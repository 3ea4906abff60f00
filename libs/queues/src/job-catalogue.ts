import { JobsOptions } from 'bullmq';

/**
 * Every job the service runs: its queue, its data, how its queue's worker runs and its options,
 * in one place. Job ids give de-duplication where a job must not be queued twice for the same
 * thing. Nothing outside this file sets a job's options.
 */
export const QUEUES = {
  // Verification, a batch of notifications per job.
  notificationBatches: 'notification-batches',
  // The previous release's verification, one notification per job: drained, not fed.
  notifications: 'notifications',
  orderSync: 'order-sync',
  registration: 'ipn-registration',
  // The deployment's housekeeping, one job at a time, apart from the lookups: the nightly
  // reconciliation, retention's passes and the overview's totals. (On BullMQ's PostgreSQL backend every queue costs each
  // worker process connections of its own: housekeeping shares one.)
  reconciliation: 'reconciliation',
} as const;
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];
export const QUEUE_NAMES = Object.values(QUEUES) as QueueName[];

/**
 * Verify one stored notification by looking its order up: an entry of a batch, or the previous
 * release's job of one. orderKey is the tracking id it names (the previous release's jobs were
 * de-duplicated by it: one per order waited). attempt counts the row's earlier tries (the inbox
 * relay queues it again after a lost job or an unmatched try).
 */
export interface VerifyNotificationData {
  notificationId: string;
  orderKey: string;
  attempt: number;
  /**
   * The relay's claim (its lease end, epoch ms), or the handover's end for a job queued from the
   * api's signal: each claim is a new job, so a row whose job was lost or failed as stalled is
   * queued afresh when its lease lapses, not dropped as a duplicate id.
   */
  claim?: number;
  /** The trace of the request that stored the notification (tracing on), continued by the job. */
  traceParent?: string;
}

/**
 * Verify a batch of stored notifications, each as VerifyNotificationData says: one job, one
 * read of their rows, one lookup per order. A notification of the batch that fails is split off
 * into a job of its own, retried as a one-notification batch is: by BullMQ, with the catalogue's
 * attempts and backoff. Those that wait for their orders' lookup intervals go on together in one
 * delayed job (the lookup rate's wait is spent in the job).
 */
export interface VerifyNotificationsData {
  notifications: VerifyNotificationData[];
}

/**
 * Poll an unpaid order: look it up, then schedule the next poll or expire it at the horizon. Each
 * names its attempt: one job per order and attempt, however often a sweep claims it. (Return
 * redirects and an admin's sync look up at once, in the api, without a job.)
 */
export interface SyncOrderData {
  orderId: string;
  pollAttempt?: number;
}

/** Look a completed order with a refund awaiting reversal up (the refund's poll schedule). */
export interface FollowRefundData {
  orderId: string;
  pollAttempt: number;
}

/** Refund the second payment of a double payment (AUTO_REFUND_DOUBLE_PAYMENTS). */
export interface RefundDoublePaymentData {
  orderId: string;
  attempt: number;
}

/** Register (or re-read) the service's IPN URL at the gateway. */
export interface RegisterIpnData {
  url: string;
  method: 'GET' | 'POST';
  /** The merchant account whose URL it is (default `default`, as before accounts). */
  account?: string;
}

/** Reconcile recent orders against the gateway (nightly). */
export interface ReconcileData {
  sinceHours: number;
}

/** Remove operational records past their retention (every few minutes, a bounded pass). */
export type PruneOperationalRecordsData = Record<string, never>;

/** Sum the hours that ended (and those late changes touched) into the overview's totals. */
export type SumActivityData = Record<string, never>;

export interface JobData {
  'verify-notifications': VerifyNotificationsData;
  'verify-notification': VerifyNotificationData;
  'sync-order': SyncOrderData;
  'follow-refund': FollowRefundData;
  'refund-double-payment': RefundDoublePaymentData;
  'register-ipn': RegisterIpnData;
  reconcile: ReconcileData;
  'prune-operational-records': PruneOperationalRecordsData;
  'sum-activity': SumActivityData;
}
export type JobName = keyof JobData;

export const JOB_QUEUE: { [N in JobName]: QueueName } = {
  'verify-notifications': QUEUES.notificationBatches,
  'verify-notification': QUEUES.notifications,
  'sync-order': QUEUES.orderSync,
  // Beside the order polls: the same lookups, under the same rate limit.
  'follow-refund': QUEUES.orderSync,
  'refund-double-payment': QUEUES.orderSync,
  'register-ipn': QUEUES.registration,
  reconcile: QUEUES.reconciliation,
  'prune-operational-records': QUEUES.reconciliation,
  'sum-activity': QUEUES.reconciliation,
};

export interface QueueWorkerSettings {
  concurrency: number;
  /**
   * Jobs start at no more than GATEWAY_LOOKUPS_PER_SECOND, across every worker process (a job is
   * one lookup). A batch's lookups are counted one by one instead, by its handler.
   */
  lookupRateLimited: boolean;
  /**
   * A queue only the previous release fed: a worker process consumes it only when it holds jobs
   * as the process starts (an upgrade under way), so it costs no connections otherwise.
   */
  drainOnly?: boolean;
}

/** Notifications per verification job at most: a batch's lookups run side by side. */
export const NOTIFICATIONS_PER_JOB = 100;

/** How each queue's worker runs (one worker per queue per worker process). */
export const QUEUE_WORKERS: Record<QueueName, QueueWorkerSettings> = {
  // Up to 4 batches of 100: as many lookups in flight as 400 one-notification jobs, for the
  // queue's moves of 4 (the gateway transport's sockets bound them further).
  [QUEUES.notificationBatches]: { concurrency: 4, lookupRateLimited: false },
  [QUEUES.notifications]: { concurrency: 50, lookupRateLimited: true, drainOnly: true },
  [QUEUES.orderSync]: { concurrency: 20, lookupRateLimited: true },
  [QUEUES.registration]: { concurrency: 1, lookupRateLimited: false },
  [QUEUES.reconciliation]: { concurrency: 1, lookupRateLimited: false },
};

/** Repeatable jobs, registered by the worker (an upsert: replicas agree on one). */
export const JOB_SCHEDULES = {
  /** 02:30 UTC, a quiet hour in East Africa (05:30 EAT); the window overlaps the previous run. */
  'nightly-reconcile': {
    job: 'reconcile',
    pattern: '30 2 * * *',
    tz: 'UTC',
    data: { sinceHours: 48 },
  },
  /** Every ten minutes: each pass removes what lapsed since the last, in small batches. */
  'operational-records-retention': {
    job: 'prune-operational-records',
    pattern: '*/10 * * * *',
    tz: 'UTC',
    data: {},
  },
  /** Every minute: the overview counts live only what the totals do not hold yet. */
  'activity-totals': {
    job: 'sum-activity',
    pattern: '* * * * *',
    tz: 'UTC',
    data: {},
  },
} as const satisfies Record<
  string,
  { job: JobName; pattern: string; tz: string; data: JobData[JobName] }
>;
export type ScheduleName = keyof typeof JOB_SCHEDULES;

/** The first retry's delay of a job that failed (it doubles with each). */
export const FIRST_RETRY_DELAY_MS = 2000;

const RETRYING: JobsOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: FIRST_RETRY_DELAY_MS },
  removeOnComplete: { age: 3600, count: 10_000 },
  // Failed jobs stay listed (the dead-letter view) for a week.
  removeOnFail: { age: 7 * 24 * 3600 },
};

export function jobOptions<N extends JobName>(name: N, data: JobData[N]): JobsOptions {
  switch (name) {
    case 'verify-notifications': {
      const { notifications } = data as VerifyNotificationsData;
      const [first] = notifications;
      const claim = first.claim === undefined ? '' : `-${first.claim}`;
      return {
        ...RETRYING,
        // A row is in one batch per claim (or handover, or replay): the first row and the claim
        // name the batch. A one-notification job has the same id as the previous release's.
        jobId:
          notifications.length === 1
            ? `notification-${first.notificationId}-${first.attempt}${claim}`
            : `notifications-${first.notificationId}-${first.attempt}${claim}-${notifications.length}`,
        // Every notification's row covers it; a done batch is not worth keeping.
        removeOnComplete: true,
      };
    }
    case 'verify-notification': {
      const notification = data as VerifyNotificationData;
      return {
        ...RETRYING,
        jobId: `notification-${notification.notificationId}-${notification.attempt}${notification.claim === undefined ? '' : `-${notification.claim}`}`,
        // Every notification's row covers it; the queue only needs one lookup per order at a time.
        removeOnComplete: true,
        deduplication: { id: `verify-order-${notification.orderKey}`, keepLastIfActive: true },
      };
    }
    case 'sync-order': {
      const sync = data as SyncOrderData;
      return {
        ...RETRYING,
        attempts: 3,
        ...(sync.pollAttempt !== undefined
          ? { jobId: `poll-${sync.orderId}-${sync.pollAttempt}` }
          : {}),
      };
    }
    case 'follow-refund': {
      const follow = data as FollowRefundData;
      return {
        ...RETRYING,
        attempts: 3,
        jobId: `refund-poll-${follow.orderId}-${follow.pollAttempt}`,
      };
    }
    case 'refund-double-payment': {
      const refund = data as RefundDoublePaymentData;
      // One refund per payment: the service refuses a second, so the job never runs twice at once.
      return {
        ...RETRYING,
        attempts: 5,
        jobId: `double-payment-refund-${refund.orderId}-${refund.attempt}`,
      };
    }
    case 'register-ipn': {
      const registration = data as RegisterIpnData;
      return {
        ...RETRYING,
        attempts: 20,
        backoff: { type: 'fixed', delay: 9000 },
        // One registration waits at a time.
        deduplication: { id: `register-ipn-${registration.method}-${registration.url}` },
      };
    }
    case 'prune-operational-records':
    case 'sum-activity':
      // The next scheduled pass takes over from a failed one.
      return { ...RETRYING, attempts: 1, removeOnFail: { age: 24 * 3600, count: 100 } };
    default:
      return { ...RETRYING, attempts: 1 };
  }
}
