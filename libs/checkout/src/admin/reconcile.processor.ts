import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Job } from 'bullmq';
import { JobData, QUEUES } from '@app/queues';
import { ReconciliationService } from './reconciliation.service';

/** The nightly reconciliation; its report is stored and logged, nothing is corrected. */
@Processor(QUEUES.reconciliation)
export class ReconcileProcessor extends WorkerHost {
  constructor(private readonly reconciliation: ReconciliationService) {
    super();
  }

  async process(job: Job<JobData['reconcile']>): Promise<{ reportId: string; mismatches: number }> {
    const report = await this.reconciliation.run('nightly', job.data.sinceHours);
    return { reportId: report.id, mismatches: report.mismatch_count };
  }
}
