import { Module } from '@nestjs/common';
import { OrdersCoreModule } from '../orders/orders-core.module';
import { IpnRegistrationJobs } from './ipn-registration.jobs';
import { IpnRegistrationModule } from './ipn-registration.module';
import { LookupThrottle } from './lookup-throttle';
import { NotificationVerifier } from './notification-verifier';
import { NotificationWorkers } from './notification-workers';
import { RecurringChargeRecorder } from './recurring-charge.recorder';

/** The ipn feature's processors: notification verification and IPN registration, in apps/worker. */
@Module({
  imports: [OrdersCoreModule, IpnRegistrationModule],
  providers: [
    LookupThrottle,
    RecurringChargeRecorder,
    NotificationVerifier,
    IpnRegistrationJobs,
    NotificationWorkers,
  ],
  exports: [IpnRegistrationJobs],
})
export class IpnWorkerModule {}
