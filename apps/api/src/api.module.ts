import { Module } from '@nestjs/common';
import { SERVICE_CONFIG, ServiceConfigModule } from '@app/config';
import { HealthModule, LoggingModule, MetricsModule } from '@app/common';
import { PersistenceModule } from '@app/persistence';
import { QueueInfrastructureModule } from '@app/queues';
import {
  AdminModule,
  FinanceModule,
  OverviewModule,
  OperatorsModule,
  OperatorsApiModule,
  IpnModule,
  MerchantEventsModule,
  OrdersModule,
  RateLimitsModule,
  RefundsModule,
  UnmatchedPaymentsModule,
} from '@app/checkout';

@Module({
  imports: [
    ServiceConfigModule,
    LoggingModule.forRoot('api', SERVICE_CONFIG),
    PersistenceModule.forApp('api'),
    QueueInfrastructureModule,
    RateLimitsModule,
    HealthModule,
    MetricsModule,
    OrdersModule,
    IpnModule,
    RefundsModule,
    UnmatchedPaymentsModule,
    AdminModule,
    FinanceModule,
    OperatorsModule,
    OverviewModule,
    OperatorsApiModule,
    MerchantEventsModule,
  ],
})
export class ApiModule {}
