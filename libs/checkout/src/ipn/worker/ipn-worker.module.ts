import { Module } from '@nestjs/common';
import { OrdersCoreModule } from '../../orders/orders-core.module';
import { IpnRegistrationModule } from '../../orders/ipn-registration.module';
import { InboxRelay } from './inbox-relay';
import { LookupThrottle } from './lookup-throttle';
import { NotificationVerifier } from './notification-verifier';
import { RecurringChargeRecorder } from './recurring-charge.recorder';
import { IpnRegistrationAtStart, RegisterIpnJob } from './register-ipn.job';
import { VerifyNotificationJob } from './verify-notification.job';
import { VerifyNotificationsJob } from './verify-notifications.job';
import { UnmatchedPaymentLedger } from '../../unmatched-payments/unmatched-payment-ledger';

/**
 * The ipn feature's worker side: the inbox relay, notification verification and IPN
 * registration.
 */
@Module({
  imports: [OrdersCoreModule, IpnRegistrationModule],
  providers: [
    LookupThrottle,
    RecurringChargeRecorder,
    UnmatchedPaymentLedger,
    NotificationVerifier,
    VerifyNotificationsJob,
    VerifyNotificationJob,
    RegisterIpnJob,
    IpnRegistrationAtStart,
    InboxRelay,
  ],
})
export class IpnWorkerModule {}
