import { Module } from '@nestjs/common';
import { OrdersCoreModule } from '../../orders/orders-core.module';
import { DoublePaymentRefunds } from '../double-payment-refunds';
import { RefundListService } from './refund-list.service';
import { RefundService } from './refund.service';
import { RefundsController } from './refunds.controller';

/**
 * The refunds feature's HTTP side: admin refund requests (a double payment's second payment
 * too), their listing and manual resolution.
 */
@Module({
  imports: [OrdersCoreModule],
  controllers: [RefundsController],
  providers: [RefundService, RefundListService, DoublePaymentRefunds],
  exports: [RefundService, RefundListService],
})
export class RefundsModule {}
