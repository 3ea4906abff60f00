import { Module } from '@nestjs/common';
import { SERVICE_CONFIG, ServiceConfigModule } from '@app/config';
import { HealthModule, LoggingModule, MetricsModule } from '@app/common';
import { PersistenceModule } from '@app/persistence';
import { JobRunnerModule, QueueInfrastructureModule } from '@app/queues';
import {
  AdminWorkerModule,
  IpnWorkerModule,
  MerchantEventsWorkerModule,
  OrdersWorkerModule,
  RefundsWorkerModule,
  RetentionWorkerModule,
  OverviewWorkerModule,
} from '@app/checkout';

/** The worker serves no API: only health on WORKER_PORT, beside its BullMQ processors. */
@Module({
  imports: [
    ServiceConfigModule,
    LoggingModule.forRoot('worker', SERVICE_CONFIG),
    PersistenceModule.forApp('worker'),
    QueueInfrastructureModule,
    JobRunnerModule,
    HealthModule,
    MetricsModule,
    OrdersWorkerModule,
    IpnWorkerModule,
    RefundsWorkerModule,
    AdminWorkerModule,
    MerchantEventsWorkerModule,
    RetentionWorkerModule,
    OverviewWorkerModule,
  ],
})
export class WorkerModule {}
