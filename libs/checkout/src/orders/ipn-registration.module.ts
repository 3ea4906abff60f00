import { Module } from '@nestjs/common';
import { GatewayClientModule } from '@app/gateway-client';
import { IpnRegistrationService } from './ipn-registration.service';

/** Shared by the checkout (notification_id on every order), the worker and admin. */
@Module({
  imports: [GatewayClientModule],
  providers: [IpnRegistrationService],
  exports: [IpnRegistrationService],
})
export class IpnRegistrationModule {}
