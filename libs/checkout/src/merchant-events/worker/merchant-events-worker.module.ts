import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QUEUES } from '@app/queues';
import { MerchantWebhookProcessor } from './merchant-webhook.processor';
import { OutboxRelay } from './outbox-relay.service';

/**
 * The merchant-events feature's processors: the outbox relay (Postgres → queue) and the signed
 * webhook delivery with its day-long retry schedule.
 */
@Module({
  imports: [BullModule.registerQueue({ name: QUEUES.merchantEvents })],
  providers: [OutboxRelay, MerchantWebhookProcessor],
  exports: [OutboxRelay],
})
export class MerchantEventsWorkerModule {}
