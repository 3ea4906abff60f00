import { Module } from '@nestjs/common';
import { GatewayClientModule } from '@app/gateway-client';
import { OrderJournal } from './order-journal';
import { OrderOutcomeService } from './order-outcome.service';
import { OrderSyncService } from './order-sync.service';

/** What both the api and the worker need to change an order: lookups, outcomes, the journal. */
@Module({
  imports: [GatewayClientModule],
  providers: [OrderJournal, OrderOutcomeService, OrderSyncService],
  exports: [GatewayClientModule, OrderJournal, OrderOutcomeService, OrderSyncService],
})
export class OrdersCoreModule {}
