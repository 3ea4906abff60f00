import { Module } from '@nestjs/common';
import { OrdersCoreModule } from '../../orders/orders-core.module';
import { DoublePaymentRefunds } from '../double-payment-refunds';
import { RefundApprovals } from './refund-approvals';
import { RefundListService } from './refund-list.service';
import { RefundService } from './refund.service';
import { RefundsController } from './refunds.controller';

/**
 * The refunds feature's HTTP side: admin refund requests (a double payment's second payment
 * too), four-eyes approval above the threshold, their listing and manual resolution.
 */
@Module({
  imports: [OrdersCoreModule],
  controllers: [RefundsController],
  providers: [RefundService, RefundListService, DoublePaymentRefunds, RefundApprovals],
  exports: [RefundService, RefundListService],
})
export class RefundsModule {}
