import { Injectable } from '@nestjs/common';
import { QueueJob, QueueJobHandler, ReconcileData } from '@app/queues';
import { ReconciliationService } from '../reconciliation.service';

/** The nightly reconciliation; its report is stored and logged, nothing is corrected. */
@Injectable()
@QueueJob('reconcile')
export class ReconcileJob implements QueueJobHandler<'reconcile'> {
  constructor(private readonly reconciliation: ReconciliationService) {}

  async run(data: ReconcileData): Promise<{ reportId: string; mismatches: number }> {
    const report = await this.reconciliation.run('nightly', data.sinceHours);
    return { reportId: report.id, mismatches: report.mismatch_count };
  }
}
