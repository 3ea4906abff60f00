import { Injectable, Logger, Module, OnApplicationBootstrap } from '@nestjs/common';
import { JobProducer } from '@app/queues';
import { OperationalRecordsPruner } from './operational-records-pruner';

/** Registers the retention pass once per deployment (an upsert: replicas agree on one). */
@Injectable()
class RetentionSchedule implements OnApplicationBootstrap {
  private readonly logger = new Logger('RetentionSchedule');

  constructor(private readonly jobs: JobProducer) {}

  async onApplicationBootstrap(): Promise<void> {
    try {
      await this.jobs.schedule('operational-records-retention');
    } catch (error) {
      // The worker still serves other queues; the next start schedules it again.
      this.logger.warn(`retention not scheduled: ${(error as Error).message}`);
    }
  }
}

/** Retention's worker side: the scheduled pass that removes lapsed operational records. */
@Module({
  providers: [OperationalRecordsPruner, RetentionSchedule],
})
export class RetentionWorkerModule {}
