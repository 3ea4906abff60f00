import { Injectable, Logger, Module, OnApplicationBootstrap } from '@nestjs/common';
import { JobProducer } from '@app/queues';
import { OrdersCoreModule } from '../../orders/orders-core.module';
import { ReconciliationService } from '../reconciliation.service';
import { OperationsGauges } from './operations-gauges';
import { ReconcileJob } from './reconcile.job';

/** Registers the nightly reconciliation once per deployment (an upsert: replicas agree on one). */
@Injectable()
class NightlyReconcileSchedule implements OnApplicationBootstrap {
  private readonly logger = new Logger('NightlyReconcile');

  constructor(private readonly jobs: JobProducer) {}

  async onApplicationBootstrap(): Promise<void> {
    try {
      await this.jobs.schedule('nightly-reconcile');
    } catch (error) {
      // The worker still serves other queues; the next start schedules it again.
      this.logger.warn(`nightly reconciliation not scheduled: ${(error as Error).message}`);
    }
  }
}

/** The admin feature's worker side: the nightly reconciliation and the backlog gauges. */
@Module({
  imports: [OrdersCoreModule],
  providers: [ReconciliationService, ReconcileJob, NightlyReconcileSchedule, OperationsGauges],
})
export class AdminWorkerModule {}
