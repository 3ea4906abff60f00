import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { countHttpRequests, createFastifyApp, exceptOnHotRoutes, hotRouteSkips } from '@app/common';
import { CheckoutExceptionFilter } from '@app/checkout/http/checkout-exception.filter';
import { checkoutValidationPipe } from '@app/checkout/http/validation';
import { serveHotRoutes } from '@app/checkout/http/hot-routes';
import { useAdminSessionCookies } from '@app/checkout/admin/api/admin-session';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { ApiModule } from './api.module';
import { apiDocument } from './api-document';

/** The api as main.ts runs it and as the e2e suites boot it: same filter, pipe and docs. */
export async function createApiApp(): Promise<NestFastifyApplication> {
  const app = await createFastifyApp(ApiModule);
  acceptEmptyJsonBodies(app);
  await useAdminSessionCookies(
    app.getHttpAdapter().getInstance(),
    app.get<ServiceConfig>(SERVICE_CONFIG).adminApiKeys,
  );
  // The IPN route's template holds its path secret: it is counted under a placeholder.
  countHttpRequests(app.getHttpAdapter().getInstance(), (route) =>
    route.startsWith('/v1/ipn/') ? '/v1/ipn/:secret' : route,
  );
  allowListedOrigins(app, app.get<ServiceConfig>(SERVICE_CONFIG).corsAllowedOrigins);
  app.useGlobalFilters(new CheckoutExceptionFilter());
  app.useGlobalPipes(checkoutValidationPipe());
  // The hot controller methods (the checkouts, the order status read): Nest's own global guards,
  // pipes and filter, read when the routes are registered, without Nest's pipeline around them.
  serveHotRoutes(app);
  // Built when /docs is first asked for, not at every start: scanning every route takes a while.
  SwaggerModule.setup('docs', app, () => apiDocument(app));
  return app;
}

/**
 * A POST with a content type but no body (curl -X POST -H 'Content-Type: application/json'
 * without -d) is a request without a body, not a 400 for an empty JSON text: cancel and sync take
 * none. The header is dropped before parsing, so nothing is parsed. A hot route that reads a
 * JSON body says it needs this (emptyJsonBody: the checkouts); the IPN route reads its own.
 */
function acceptEmptyJsonBodies(app: NestFastifyApplication): void {
  app
    .getHttpAdapter()
    .getInstance()
    .addHook(
      'onRequest',
      exceptOnHotRoutes('emptyJsonBody', async (request) => {
        const length = request.headers['content-length'];
        const chunked = request.headers['transfer-encoding'] !== undefined;
        if (
          request.headers['content-type'] &&
          !chunked &&
          (length === undefined || length === '0')
        ) {
          delete request.headers['content-type'];
        }
      }),
    );
}

/**
 * CORS: pages of the listed origins may call the shop's routes (a shop page that reads an order's
 * status, say); others get no Access-Control-Allow-Origin and the browser keeps the answer from
 * them. The admin routes and the console answer no other origin whatever the list says. The live
 * stream answers any origin itself (it takes only a status_token). No cookies cross origins. A hot
 * route answers none unless it says it needs CORS (crossOrigin: the checkouts and the status read
 * do, the IPN route does not).
 */
function allowListedOrigins(app: NestFastifyApplication, origins: string[]): void {
  if (origins.length === 0) return;
  const shared = {
    credentials: false,
    methods: ['GET', 'POST', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'Last-Event-ID'],
    exposedHeaders: [
      'Retry-After',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'X-Request-Id',
    ],
    maxAge: 600,
  };
  app.enableCors({
    delegator: (request, callback) => {
      if (hotRouteSkips(request as FastifyRequest, 'crossOrigin')) {
        return callback(null, { origin: false });
      }
      const admin = /^\/(v1\/)?admin(\/|\?|$)/.test(request.url ?? '');
      callback(null, { ...shared, origin: admin ? false : origins });
    },
  });
}
