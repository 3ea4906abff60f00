import { Injectable } from '@nestjs/common';
import { FollowRefundData, QueueJob, QueueJobHandler } from '@app/queues';
import { RefundFollowUp } from './refund-follow-up';

/** One look at a completed order whose refund awaits its reversal. */
@Injectable()
@QueueJob('follow-refund')
export class FollowRefundJob implements QueueJobHandler<'follow-refund'> {
  constructor(private readonly followUp: RefundFollowUp) {}

  run(data: FollowRefundData): Promise<void> {
    return this.followUp.follow(data.orderId);
  }
}
