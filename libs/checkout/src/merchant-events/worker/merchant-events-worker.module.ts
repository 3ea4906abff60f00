import { Module } from '@nestjs/common';
import { EnvironmentEndpoint } from './environment-endpoint';
import { WebhookDispatcher } from './webhook-dispatcher.service';

/**
 * The merchant-events feature's worker side: ORDER_WEBHOOK_URL kept as an endpoint, and the
 * dispatcher that delivers each event to every endpoint that subscribes to it.
 */
@Module({
  providers: [EnvironmentEndpoint, WebhookDispatcher],
  exports: [WebhookDispatcher],
})
export class MerchantEventsWorkerModule {}
