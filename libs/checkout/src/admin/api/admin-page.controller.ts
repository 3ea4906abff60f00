import { Controller, Delete, Get, HttpCode, Inject, Post, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { CheckoutError } from '../../errors/checkout-error';
import { AdminRoutes, Requires } from '../../operators/access-guards';
import { bearerKey } from '../../http/api-keys';
import { pageSecurity, securePage } from '../../http/page-security';
import { secureCookies } from '../../operators/session-cookie';
import { AdminSessions, SESSION_COOKIE, sessionCookieOptions } from './admin-session';
import { consoleFiles } from './console-files';

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

/**
 * The console's headers, on its page, script and styles only (the JSON API and the queue
 * dashboard keep theirs): it holds no key of its own, runs no inline script, is never framed.
 */
const consoleHeaders = securePage(pageSecurity());

/** A part of the console with helmet's headers, never cached. */
async function sendPagePart(reply: FastifyReply, type: string, body: string) {
  await consoleHeaders(reply);
  return reply.header('cache-control', 'no-store').type(type).send(body);
}
