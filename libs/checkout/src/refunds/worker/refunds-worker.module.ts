import { Module } from '@nestjs/common';
import { OrdersCoreModule } from '../../orders/orders-core.module';
import { FollowRefundJob } from './follow-refund.job';
import { RefundFollowUp } from './refund-follow-up';

/** The refunds feature's worker side: following accepted refunds until the gateway reverses them. */
@Module({
  imports: [OrdersCoreModule],
  providers: [RefundFollowUp, FollowRefundJob],
})
export class RefundsWorkerModule {}
