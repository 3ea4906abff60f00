import { Module } from '@nestjs/common';
import { OrdersCoreModule } from '../../orders/orders-core.module';
import { RefundListService } from './refund-list.service';
import { RefundService } from './refund.service';
import { RefundsController } from './refunds.controller';

/** The refunds feature's HTTP side: admin refund requests, their listing and manual resolution. */
@Module({
  imports: [OrdersCoreModule],
  controllers: [RefundsController],
  providers: [RefundService, RefundListService],
  exports: [RefundService, RefundListService],
})
export class RefundsModule {}
