import { Inject, Module } from '@nestjs/common';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { IpnRegistrationModule } from '../ipn-registration.module';
import { CheckoutReturnController } from './checkout-return.controller';
import { CheckoutReturnService } from './checkout-return.service';
import { CheckoutSubmission } from './checkout-submission';
import { CheckoutService } from './checkout.service';
import { CheckoutsController } from './checkouts.controller';
import { useCheckoutRules } from './dto/checkout-rules';
import { IdempotencyService } from './idempotency.service';
import { OrderStatusFeed } from './live/order-status-feed';
import { OrderStreamController } from './live/order-stream.controller';
import { StatusTokens } from './live/status-tokens';
import { OrderQueryService } from './order-query.service';
import { OrdersController } from './orders.controller';
import { PaymentAttemptService } from './payment-attempts.service';
import { PaymentLinkPage } from './payment-links/payment-link-page';
import { PaymentLinksController } from './payment-links/payment-links.controller';
import { PaymentLinksService } from './payment-links/payment-links.service';
import { OrdersCoreModule } from '../orders-core.module';

/**
 * The orders feature's HTTP side (controllers and their services), imported by apps/api: the
 * checkouts, and the payment links whose pages start them.
 */
@Module({
  imports: [OrdersCoreModule, IpnRegistrationModule],
  controllers: [
    CheckoutsController,
    OrdersController,
    OrderStreamController,
    CheckoutReturnController,
    PaymentLinksController,
  ],
  providers: [
    CheckoutService,
    CheckoutSubmission,
    IdempotencyService,
    OrderQueryService,
    CheckoutReturnService,
    StatusTokens,
    OrderStatusFeed,
    PaymentAttemptService,
    PaymentLinksService,
    PaymentLinkPage,
  ],
  exports: [OrderQueryService],
})
export class OrdersModule {
  constructor(@Inject(SERVICE_CONFIG) config: ServiceConfig) {
    // The DTOs check currencies and networks against the configured lists.
    useCheckoutRules(config);
  }
}
