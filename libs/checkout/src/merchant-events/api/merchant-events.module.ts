import { Module } from '@nestjs/common';
import { MerchantEventsAdminController } from './merchant-events-admin.controller';
import { MerchantEventsAdminService } from './merchant-events-admin.service';

/** The merchant-events feature's HTTP side: the admin's event list, attempts and redelivery. */
@Module({
  controllers: [MerchantEventsAdminController],
  providers: [MerchantEventsAdminService],
})
export class MerchantEventsModule {}
