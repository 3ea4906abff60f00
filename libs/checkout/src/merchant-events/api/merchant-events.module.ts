import { Module } from '@nestjs/common';
import { MerchantEventsAdminController } from './merchant-events-admin.controller';
import { MerchantEventsAdminService } from './merchant-events-admin.service';
import { WebhookEndpointsController } from './webhook-endpoints.controller';
import { WebhookEndpointsService } from './webhook-endpoints.service';

/**
 * The merchant-events feature's HTTP side: the admin's event list, attempts and redelivery, and
 * the webhook endpoints admins manage.
 */
@Module({
  controllers: [MerchantEventsAdminController, WebhookEndpointsController],
  providers: [MerchantEventsAdminService, WebhookEndpointsService],
})
export class MerchantEventsModule {}
