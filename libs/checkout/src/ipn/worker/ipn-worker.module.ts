import { Module } from '@nestjs/common';
import { OrdersCoreModule } from '../../orders/orders-core.module';
import { InboxRelay } from './inbox-relay';
import { IpnRegistrationJobs } from './ipn-registration.jobs';
import { IpnRegistrationModule } from '../ipn-registration.module';
import { LookupThrottle } from './lookup-throttle';
import { NotificationQueue } from './notification-queue';
import { NotificationVerifier } from './notification-verifier';
import { NotificationWorkers } from './notification-workers';
import { RecurringChargeRecorder } from './recurring-charge.recorder';

/**
 * The ipn feature's processors, in apps/worker: the inbox relay, notification verification and
 * IPN registration.
 */
@Module({
  imports: [OrdersCoreModule, IpnRegistrationModule],
  providers: [
    LookupThrottle,
    RecurringChargeRecorder,
    NotificationVerifier,
    IpnRegistrationJobs,
    NotificationWorkers,
    NotificationQueue,
    InboxRelay,
  ],
  exports: [IpnRegistrationJobs],
})
export class IpnWorkerModule {}
