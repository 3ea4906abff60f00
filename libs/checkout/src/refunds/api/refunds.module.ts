import { Module } from '@nestjs/common';
import { OrdersCoreModule } from '../../orders/orders-core.module';
import { DoublePaymentRefunds } from '../double-payment-refunds';
import { RefundApprovals } from './refund-approvals';
import { RefundListService } from './refund-list.service';
import { RefundService } from './refund.service';
import { RefundsController } from './refunds.controller';
import { UnmatchedPaymentLedger } from '../../unmatched-payments/unmatched-payment-ledger';
import { UnmatchedPaymentRefundsController } from './unmatched-payment-refunds.controller';
import { UnmatchedPaymentRefunds } from './unmatched-payment-refunds';

/**
 * The refunds feature's HTTP side: admin refund requests (a double payment's second payment
 * and a payment without an order too), four-eyes approval above the threshold, their listing and manual resolution.
 */
@Module({
  imports: [OrdersCoreModule],
  controllers: [RefundsController, UnmatchedPaymentRefundsController],
  providers: [
    RefundService,
    RefundListService,
    DoublePaymentRefunds,
    RefundApprovals,
    UnmatchedPaymentLedger,
    UnmatchedPaymentRefunds,
  ],
  exports: [RefundService, RefundListService],
})
export class RefundsModule {}
