import { Module } from '@nestjs/common';
import { OrdersCoreModule } from '../orders-core.module';
import { OrderExpiryService } from './order-expiry.service';
import { OrderSweeper } from './order-sweeper';
import { PollScheduleService } from './poll-schedule.service';
import { SyncOrderJob } from './sync-order.job';

/** The orders feature's worker side: polling, expiry and the Postgres sweep. */
@Module({
  imports: [OrdersCoreModule],
  providers: [OrderExpiryService, PollScheduleService, OrderSweeper, SyncOrderJob],
  exports: [OrderSweeper],
})
export class OrdersWorkerModule {}
