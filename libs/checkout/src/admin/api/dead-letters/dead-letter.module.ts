import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { ALL_QUEUES, allQueuesProvider, QUEUE_NAMES } from './all-queues';
import { DeadLetterService } from './dead-letter.service';

/**
 * Every queue of the catalogue (ALL_QUEUES) and the dead-letter list/inspect/replay over their
 * failed sets. Imported by the admin feature.
 */
@Module({
  imports: [BullModule.registerQueue(...QUEUE_NAMES.map((name) => ({ name })))],
  providers: [allQueuesProvider, DeadLetterService],
  exports: [ALL_QUEUES, DeadLetterService],
})
export class DeadLetterModule {}
