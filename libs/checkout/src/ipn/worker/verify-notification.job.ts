import { Injectable } from '@nestjs/common';
import { continueTrace } from '@app/common';
import { QueueJob, QueueJobHandler, RunLater, VerifyNotificationData } from '@app/queues';
import { NotificationVerifier } from './notification-verifier';

/**
 * The previous release's job, one stored notification each, on the queue that release fed: its
 * jobs still waiting after an upgrade are verified as they were. Nothing queues it any more.
 */
@Injectable()
@QueueJob('verify-notification')
export class VerifyNotificationJob implements QueueJobHandler<'verify-notification'> {
  constructor(private readonly verifier: NotificationVerifier) {}

  run(data: VerifyNotificationData): Promise<RunLater | void> {
    return continueTrace(data.traceParent, 'verify notification', () => this.verifier.verify(data));
  }

  exhausted(data: VerifyNotificationData, error: Error): Promise<void> {
    return this.verifier.exhausted(data.notificationId, error);
  }
}
