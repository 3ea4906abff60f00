import { Controller, Delete, Get, HttpCode, Inject, Post, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import helmet, { HelmetOptions } from 'helmet';
import type { FastifyReply } from 'fastify';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { CheckoutError } from '../../errors/checkout-error';
import { AdminRoutes, Requires } from '../../operators/access-guards';
import { bearerKey } from '../../http/api-keys';
import { secureCookies } from '../../operators/session-cookie';
import { AdminSessions, SESSION_COOKIE, sessionCookieOptions } from './admin-session';
import { consoleFiles } from './console-files';

/**
 * helmet's headers for the console, its script and its styles (set on these answers only: the
 * JSON API and the queue dashboard keep theirs, and no other request runs a hook for them). Only
 * same-origin scripts and styles: the console holds no key of its own and runs no inline script;
 * it is never framed.
 */
export const CONSOLE_SECURITY: HelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      connectSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'self'"],
    },
  },
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' },
};

/**
 * The console (apps/console) at /admin: one page, its script and its styles. It calls the admin
 * JSON API with the key the operator typed (kept in sessionStorage), so nothing here needs or
 * reveals a key.
 */
@ApiExcludeController()
@Controller('admin')
export class AdminPageController {
  private readonly sessions: AdminSessions;

  constructor(@Inject(SERVICE_CONFIG) private readonly config: ServiceConfig) {
    this.sessions = new AdminSessions(config.adminApiKeys);
  }

  @Get()
  async page(@Res() reply: FastifyReply) {
    return sendPagePart(reply, 'text/html; charset=utf-8', (await consoleFiles()).html);
  }

  @Get('app.js')
  async script(@Res() reply: FastifyReply) {
    return sendPagePart(reply, 'text/javascript; charset=utf-8', (await consoleFiles()).script);
  }

  @Get('app.css')
  async styles(@Res() reply: FastifyReply) {
    return sendPagePart(reply, 'text/css; charset=utf-8', (await consoleFiles()).styles);
  }

  /**
   * Exchanges the Bearer admin key for an HttpOnly session cookie scoped to /admin, which lets the
   * browser open the queue dashboard (a navigation cannot carry an Authorization header).
   */
  @Post('session')
  @Requires('operations:write')
  @AdminRoutes()
  @HttpCode(204)
  signIn(@Res() reply: FastifyReply) {
    const session = this.sessions.sessionFor(bearerKey(reply.request.headers.authorization) ?? '');
    // People signed in open the dashboard with their own session; scoped keys are for machines.
    if (!session) {
      throw CheckoutError.forbidden('a queue session is opened with a bootstrap admin key');
    }
    return reply
      .setCookie(SESSION_COOKIE, session, sessionCookieOptions(secureCookies(this.config)))
      .header('cache-control', 'no-store')
      .send();
  }

  @Delete('session')
  @HttpCode(204)
  signOut(@Res() reply: FastifyReply) {
    return reply
      .clearCookie(SESSION_COOKIE, sessionCookieOptions(secureCookies(this.config)))
      .send();
  }
}

const consoleHeaders = helmet(CONSOLE_SECURITY);

/** A part of the console with helmet's headers, never cached. */
async function sendPagePart(reply: FastifyReply, type: string, body: string) {
  // helmet sets its headers on the outgoing message; Fastify sends them with its own.
  await new Promise<void>((resolve, reject) =>
    consoleHeaders(reply.request.raw, reply.raw, (error?: unknown) =>
      error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(),
    ),
  );
  return reply.header('cache-control', 'no-store').type(type).send(body);
}
