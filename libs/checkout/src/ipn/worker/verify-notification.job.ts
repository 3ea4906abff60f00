import { Injectable } from '@nestjs/common';
import { continueTrace } from '@app/common';
import { QueueJob, QueueJobHandler, RunLater, VerifyNotificationData } from '@app/queues';
import { NotificationVerifier } from './notification-verifier';

/** Verifies one stored notification; a row whose retries ran out is marked failed. */
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
