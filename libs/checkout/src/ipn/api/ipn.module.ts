import { Module } from '@nestjs/common';
import { IpnInbox } from './ipn-inbox';
import { IpnRoute } from './ipn-route';

/** The ipn feature's HTTP side: the gateway's notification endpoint and its inbox, in apps/api. */
@Module({
  providers: [IpnInbox, IpnRoute],
})
export class IpnModule {}
