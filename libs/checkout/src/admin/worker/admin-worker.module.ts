import { BullModule, InjectQueue } from '@nestjs/bullmq';
import { Logger, Module, OnApplicationBootstrap } from '@nestjs/common';
import { Queue } from 'bullmq';
import { JobData, jobOptions, logQueueErrorsOnce, QUEUES } from '@app/queues';
import { OrdersCoreModule } from '../../orders/orders-core.module';
import { ReconcileProcessor } from './reconcile.processor';
import { ReconciliationService } from '../reconciliation.service';

/** 02:30 UTC, a quiet hour in East Africa (05:30 EAT); the window overlaps the previous run. */
export const NIGHTLY_RECONCILE = { pattern: '30 2 * * *', tz: 'UTC', sinceHours: 48 };

/** Registers the repeatable nightly job once per deployment (upsert: replicas agree on one). */
class NightlyReconcileSchedule implements OnApplicationBootstrap {
  private readonly logger = new Logger('NightlyReconcile');

  constructor(@InjectQueue(QUEUES.reconciliation) private readonly queue: Queue) {
    logQueueErrorsOnce(queue, this.logger, 'reconciliation queue');
  }

  async onApplicationBootstrap(): Promise<void> {
    const data: JobData['reconcile'] = { sinceHours: NIGHTLY_RECONCILE.sinceHours };
    try {
      await this.queue.upsertJobScheduler(
        'nightly-reconcile',
        { pattern: NIGHTLY_RECONCILE.pattern, tz: NIGHTLY_RECONCILE.tz },
        { name: 'reconcile', data, opts: jobOptions('reconcile', data) },
      );
    } catch (error) {
      // The worker still serves other queues; the next start schedules it again.
      this.logger.warn(`nightly reconciliation not scheduled: ${(error as Error).message}`);
    }
  }
}

/** The admin feature's processors: the nightly reconciliation, imported by apps/worker. */
@Module({
  imports: [OrdersCoreModule, BullModule.registerQueue({ name: QUEUES.reconciliation })],
  providers: [ReconciliationService, ReconcileProcessor, NightlyReconcileSchedule],
})
export class AdminWorkerModule {}
