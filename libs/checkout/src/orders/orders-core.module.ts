import { Module } from '@nestjs/common';
import { GatewayClientModule } from '@app/gateway-client';
import { OrderCancelService } from './order-cancel.service';
import { OrderJournal } from './order-journal';
import { OrderOutcomeService } from './order-outcome.service';
import { OrderSyncService } from './order-sync.service';

/**
 * What both the api and the worker need to change an order: lookups, outcomes, the journal, and
 * cancelling (shop, admin, and the poll horizon's expiry).
 */
@Module({
  imports: [GatewayClientModule],
  providers: [OrderJournal, OrderOutcomeService, OrderSyncService, OrderCancelService],
  exports: [
    GatewayClientModule,
    OrderJournal,
    OrderOutcomeService,
    OrderSyncService,
    OrderCancelService,
  ],
})
export class OrdersCoreModule {}
