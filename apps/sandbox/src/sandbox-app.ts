import helmet from '@fastify/helmet';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadSandboxConfig, SandboxConfig } from '@app/config';
import { logRequests, useAppLogger } from '@app/common';
import { controlRefused } from './control/control-access';
import { TrafficService } from './control/traffic.service';
import { HOSTED_PAGE_STYLE_SOURCE } from './hosted/hosted-page.html';
import { GatewayExceptionFilter } from './http/gateway-exception.filter';
import { keepRawBodies } from './http/raw-body';
import { SANDBOX_CONFIG } from './sandbox-config.token';
import { SandboxModule } from './sandbox.module';

/**
 * Builds the sandbox gateway (not listening). Configuration comes from the environment
 * (loadSandboxConfig), then `overrides`. Used by main.ts and by tests (test/support/sandbox.ts).
 */
export async function createSandboxApp(
  overrides: Partial<SandboxConfig> = {},
): Promise<NestFastifyApplication> {
  const config: SandboxConfig = { ...loadSandboxConfig(), ...overrides };
  const app = await NestFactory.create<NestFastifyApplication>(
    SandboxModule.forRoot(config),
    // The real gateway is ASP.NET: paths match in any case.
    new FastifyAdapter({
      bodyLimit: 1024 * 1024,
      routerOptions: { caseSensitive: false, ignoreTrailingSlash: true },
      // Close drops every connection, busy ones too: a caller that gave up on a held (fault) call
      // must not keep close() waiting for the hold to run out.
      forceCloseConnections: true,
    }),
    { bodyParser: false, bufferLogs: true },
  );
  useAppLogger(app);
  logRequests(app.getHttpAdapter().getInstance());
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        styleSrc: [HOSTED_PAGE_STYLE_SOURCE],
        imgSrc: ["'self'", 'data:'],
        baseUri: ["'none'"],
        // The Pay form answers with a redirect to the shop's callback or cancellation URL.
        formAction: ["'self'", 'http:', 'https:'],
        // Shops show redirect_url in an iframe of their own page, as with the real gateway.
        frameAncestors: ['*'],
      },
    },
    frameguard: false,
    crossOriginEmbedderPolicy: false,
    // Plain http on a developer's machine: a Strict-Transport-Security header would mean nothing.
    strictTransportSecurity: false,
    referrerPolicy: { policy: 'no-referrer' },
  });
  app.enableShutdownHooks();
  app.useGlobalFilters(new GatewayExceptionFilter());
  const fastify = app.getHttpAdapter().getInstance();
  keepRawBodies(fastify);
  fastify.addHook('preHandler', app.get(TrafficService).preHandler);
  // The control API settles payments at will: on a shared interface only if asked for explicitly.
  fastify.addHook('onRequest', async (request, reply) => {
    if (controlRefused(request.url, request.socket.localAddress, config.controlPublic)) {
      await reply.code(404).send({ error: 'not found' });
    }
  });
  return app;
}

/** The live configuration object of an app, e.g. to set publicUrl once the port is known. */
export function sandboxConfigOf(app: NestFastifyApplication): SandboxConfig {
  return app.get<SandboxConfig>(SANDBOX_CONFIG);
}
