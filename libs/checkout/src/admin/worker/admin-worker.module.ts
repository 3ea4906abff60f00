import { Module } from '@nestjs/common';
import { OrdersCoreModule } from '../../orders/orders-core.module';
import { ReconciliationService } from '../reconciliation.service';
import { OperationsGauges } from './operations-gauges';
import { ReconcileJob } from './reconcile.job';

/** The admin feature's worker side: the nightly reconciliation and the backlog gauges. */
@Module({
  imports: [OrdersCoreModule],
  providers: [ReconciliationService, ReconcileJob, OperationsGauges],
})
export class AdminWorkerModule {}
