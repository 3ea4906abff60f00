import { Module } from '@nestjs/common';
import { OrdersCoreModule } from '../../orders/orders-core.module';
import { UnmatchedPaymentLedger } from '../unmatched-payment-ledger';
import { UnmatchedPaymentsController } from './unmatched-payments.controller';
import { UnmatchedPaymentsService } from './unmatched-payments.service';

/** Payments without an order, the admin's side: the list and the match to an order. */
@Module({
  imports: [OrdersCoreModule],
  controllers: [UnmatchedPaymentsController],
  providers: [UnmatchedPaymentsService, UnmatchedPaymentLedger],
})
export class UnmatchedPaymentsModule {}
