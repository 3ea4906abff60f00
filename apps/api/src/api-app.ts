import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { createFastifyApp } from '@app/common';
import { CheckoutExceptionFilter } from '@app/checkout/http/checkout-exception.filter';
import { checkoutValidationPipe } from '@app/checkout/http/validation';
import { ApiModule } from './api.module';

/** The api as main.ts runs it and as the e2e suites boot it: same filter, pipe and docs. */
export async function createApiApp(): Promise<NestFastifyApplication> {
  const app = await createFastifyApp(ApiModule);
  app.useGlobalFilters(new CheckoutExceptionFilter());
  app.useGlobalPipes(checkoutValidationPipe());
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('pesapal-checkout')
      .setDescription(
        'Checkouts through the Pesapal API v3: hosted page and mobile-money push, order status, refunds.',
      )
      .setVersion('1')
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'shop or admin API key' })
      .build(),
  );
  SwaggerModule.setup('docs', app, document);
  return app;
}
