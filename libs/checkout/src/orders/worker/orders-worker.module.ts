import { Module } from '@nestjs/common';
import { OrderExpiryService } from './order-expiry.service';
import { OrderSweeper } from './order-sweeper';
import { OrderWorkers } from './order-workers';
import { OrdersCoreModule } from '../orders-core.module';
import { PollScheduleService } from './poll-schedule.service';

/** The orders feature's processors: polling, expiry and the Postgres sweep, in apps/worker. */
@Module({
  imports: [OrdersCoreModule],
  providers: [OrderExpiryService, PollScheduleService, OrderSweeper, OrderWorkers],
  exports: [OrderSweeper],
})
export class OrdersWorkerModule {}
