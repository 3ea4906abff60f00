import { Module } from '@nestjs/common';
import { DeliverEventJob } from './deliver-event.job';
import { OutboxRelay } from './outbox-relay.service';

/**
 * The merchant-events feature's worker side: the outbox relay (Postgres → queue) and the signed
 * webhook delivery with its day-long retry schedule.
 */
@Module({
  providers: [OutboxRelay, DeliverEventJob],
  exports: [OutboxRelay],
})
export class MerchantEventsWorkerModule {}
