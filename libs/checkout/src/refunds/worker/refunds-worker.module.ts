import { Module } from '@nestjs/common';
import { OrdersCoreModule } from '../../orders/orders-core.module';
import { DoublePaymentRefunds } from '../double-payment-refunds';
import { FollowRefundJob } from './follow-refund.job';
import { RefundDoublePaymentJob } from './refund-double-payment.job';
import { RefundFollowUp } from './refund-follow-up';

/**
 * The refunds feature's worker side: following accepted refunds until the gateway reverses them,
 * and refunding double payments when AUTO_REFUND_DOUBLE_PAYMENTS is on.
 */
@Module({
  imports: [OrdersCoreModule],
  providers: [RefundFollowUp, FollowRefundJob, DoublePaymentRefunds, RefundDoublePaymentJob],
})
export class RefundsWorkerModule {}
