import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { continueTrace } from '@app/common';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import {
  FIRST_RETRY_DELAY_MS,
  JobProducer,
  QueueJob,
  QueueJobHandler,
  RedisConnection,
  RunLater,
  SharedWindows,
  VerifyNotificationData,
  VerifyNotificationsData,
} from '@app/queues';
import { NotificationVerifier } from './notification-verifier';

/** A notification of the batch that is not done: to run again after `laterMs`. */
interface Left {
  notification: VerifyNotificationData;
  laterMs: number;
  error?: Error;
}

/**
 * Verifies a batch of stored notifications side by side (their rows read together, one lookup
 * per order). Each counts as one lookup against GATEWAY_LOOKUPS_PER_SECOND, all of them in one
 * round trip to the window every worker shares; those beyond the second's limit wait in the job
 * for the next window. A notification that failed, or whose order was looked up less than
 * ORDER_LOOKUP_INTERVAL_MS ago, is split off: a failure into a job of its own, which BullMQ
 * retries, and those waiting for their orders' intervals together into one delayed job (a job
 * whose notifications all wait is delayed itself); a row whose retries ran out is marked failed.
 */
@Injectable()
@QueueJob('verify-notifications')
export class VerifyNotificationsJob implements QueueJobHandler<'verify-notifications'> {
  private readonly logger = new Logger(VerifyNotificationsJob.name);
  private readonly windows: SharedWindows;
  private windowProblem = '';

  constructor(
    private readonly verifier: NotificationVerifier,
    private readonly jobs: JobProducer,
    redis: RedisConnection,
    dataSource: DataSource,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {
    this.windows = new SharedWindows(redis, dataSource);
  }

  async run({ notifications }: VerifyNotificationsData): Promise<RunLater | void> {
    const verifying: Promise<Left | undefined>[] = [];
    let waiting = notifications;
    for (;;) {
      const { allowed, waitMs } = await this.lookups(waiting.length);
      verifying.push(...waiting.slice(0, allowed).map((notification) => this.verify(notification)));
      waiting = waiting.slice(allowed);
      if (waiting.length === 0) break;
      // Over the second's limit: the rest wait for the next window here, holding the job (a
      // delayed job would come back only as soon as its queue looks again). Their hits still
      // count in this window: the limit errs towards fewer lookups, never more.
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
    const settled = await Promise.all(verifying);
    const left = settled.filter((outcome): outcome is Left => outcome !== undefined);
    if (left.length === 0) return;
    const failed = left.filter(({ error }) => error !== undefined);
    const intervals = left.filter(({ error }) => error === undefined);
    const longestWaitMs = Math.max(0, ...intervals.map(({ laterMs }) => laterMs));
    if (failed.length === 0 && intervals.length === notifications.length) {
      // Every one waits for its order's interval: the job itself comes back after the longest.
      return { runLaterMs: longestWaitMs };
    }
    if (notifications.length === 1) throw failed[0].error;
    for (const { notification, error } of failed) {
      this.logger.warn(
        { notificationId: notification.notificationId },
        `notification split off to be retried: ${(error as Error).message}`,
      );
    }
    // A failed one goes into a job of its own, retried with its own attempts. Those waiting for
    // their orders' intervals go together into one job, delayed by the longest wait (at most the
    // interval): in a stream of repeats, one job and its moves in the queue for them all instead
    // of one each. Should the queue not take them, the batch fails and is retried whole (its done
    // rows are skipped); the jobs' ids are fixed by their rows, so a second try adds none twice.
    await this.jobs.addLater('verify-notifications', [
      ...failed.map(({ notification, laterMs }) => ({
        data: { notifications: [notification] },
        delayMs: laterMs,
      })),
      ...(intervals.length > 0
        ? [
            {
              data: { notifications: intervals.map(({ notification }) => notification) },
              delayMs: longestWaitMs,
            },
          ]
        : []),
    ]);
  }

  async exhausted({ notifications }: VerifyNotificationsData, error: Error): Promise<void> {
    for (const notification of notifications) {
      await this.verifier.exhausted(notification.notificationId, error);
    }
  }

  private async verify(notification: VerifyNotificationData): Promise<Left | undefined> {
    try {
      const later = await continueTrace(notification.traceParent, 'verify notification', () =>
        this.verifier.verify(notification),
      );
      return later ? { notification, laterMs: later.runLaterMs } : undefined;
    } catch (error) {
      return { notification, laterMs: FIRST_RETRY_DELAY_MS, error: error as Error };
    }
  }

  /**
   * How many of `count` lookups this second's window still has, and how long the rest wait. When
   * the window's store does not answer, the lookups go ahead (logged once per problem).
   */
  private async lookups(count: number): Promise<{ allowed: number; waitMs: number }> {
    const limit = this.config.lookupsPerSecond;
    try {
      const [total, leftMs] = await this.windows.take(
        `${this.config.queuePrefix}:rate:lookups`,
        1000,
        count,
      );
      if (this.windowProblem) this.logger.log('lookup rate counted again');
      this.windowProblem = '';
      const before = total - count;
      return { allowed: Math.max(0, Math.min(count, limit - before)), waitMs: Math.max(1, leftMs) };
    } catch (error) {
      const problem = (error as Error).message;
      if (problem !== this.windowProblem) {
        this.logger.warn(`lookup rate not counted, its store does not answer: ${problem}`);
      }
      this.windowProblem = problem;
      return { allowed: count, waitMs: 0 };
    }
  }
}
