import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Job } from 'bullmq';
import { JobData, logQueueErrorsOnce, QUEUES } from '@app/queues';
import { ReconciliationService } from '../reconciliation.service';

/** The nightly reconciliation; its report is stored and logged, nothing is corrected. */
@Processor(QUEUES.reconciliation)
export class ReconcileProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger(ReconcileProcessor.name);

  constructor(private readonly reconciliation: ReconciliationService) {
    super();
  }

  onApplicationBootstrap(): void {
    logQueueErrorsOnce(this.worker, this.logger, 'reconciliation worker');
  }

  async process(job: Job<JobData['reconcile']>): Promise<{ reportId: string; mismatches: number }> {
    const report = await this.reconciliation.run('nightly', job.data.sinceHours);
    return { reportId: report.id, mismatches: report.mismatch_count };
  }
}
