import { createHmac, timingSafeEqual } from 'node:crypto';
import { Controller, Get, Inject, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DataSource } from 'typeorm';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { originOf } from '../../http/request-origin';
import { AuditTrail } from '../audit-trail';
import { OperatorSessions, SESSION_COOKIE } from '../operator-sessions';
import { IdentityProvider, SignInChecks } from './identity-provider';
import { secureCookies, sessionCookie } from '../session-cookie';

/** Holds the state, nonce and PKCE verifier while the browser is at the provider. */
const SIGN_IN_COOKIE = 'pc_sign_in';
const SIGN_IN_PATH = '/admin/auth';
const SIGN_IN_MAX_SECONDS = 600;

/**
 * Sign-in with the company's identity provider (OIDC_*): /admin/auth/login sends the browser
 * there, /admin/auth/callback checks what comes back and opens a console session. Every sign-in
 * and every failed one is written to the audit trail.
 */
@ApiExcludeController()
@Controller('admin/auth')
export class SignInController {
  constructor(
    private readonly provider: IdentityProvider,
    private readonly sessions: OperatorSessions,
    private readonly trail: AuditTrail,
    private readonly dataSource: DataSource,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  /** Whether people sign in here (the console asks before showing its key form). */
  @Get('methods')
  methods(@Res() reply: FastifyReply) {
    return reply
      .header('cache-control', 'no-store')
      .send({ identity_provider: this.provider.settings !== null, login: `${SIGN_IN_PATH}/login` });
  }

  @Get('login')
  async login(@Query('return_to') returnTo: unknown, @Res() reply: FastifyReply) {
    if (!this.provider.settings) return notConfigured(reply);
    const { url, checks } = await this.provider.start(safeReturn(returnTo));
    return reply
      .setCookie(SIGN_IN_COOKIE, this.seal(checks), {
        path: SIGN_IN_PATH,
        httpOnly: true,
        // Lax: the provider sends the browser back with a top-level GET from its own site.
        sameSite: 'lax',
        secure: secureCookies(this.config),
        maxAge: SIGN_IN_MAX_SECONDS,
      })
      .header('cache-control', 'no-store')
      .redirect(url, 302);
  }

  @Get('callback')
  async callback(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    if (!this.provider.settings) return notConfigured(reply);
    const origin = originOf(request);
    const checks = this.unseal(request.cookies?.[SIGN_IN_COOKIE]);
    reply.clearCookie(SIGN_IN_COOKIE, { path: SIGN_IN_PATH });
    let failure: string;
    try {
      if (!checks) {
        throw new Error('no sign-in was started in this browser in the last 10 minutes');
      }
      const queryAt = request.url.indexOf('?');
      const person = await this.provider.finish(
        queryAt < 0 ? '' : request.url.slice(queryAt),
        checks,
      );
      const opened = await this.dataSource.transaction(async (manager) => {
        const { token, session } = await this.sessions.open(person, manager);
        await this.trail.record(
          {
            actor: { kind: 'person', id: person.subject, email: person.email, roles: person.roles },
            action: 'session.signed_in',
            target: `session:${session.id}`,
            after: { roles: person.roles, expires_at: session.expiresAt.toISOString() },
            outcome: 'succeeded',
            status: 200,
            origin,
          },
          manager,
        );
        return token;
      });
      // A page, not a redirect: the navigation it starts is same-site, so the browser sends the
      // SameSite=Strict cookie with it (a redirect chain begun at the provider would not).
      return reply
        .setCookie(SESSION_COOKIE, opened, sessionCookie(this.config))
        .header('cache-control', 'no-store')
        .type('text/html; charset=utf-8')
        .send(continuePage(checks.returnTo));
    } catch (error) {
      failure = (error as Error).message;
    }
    this.trail.recordRefusal({
      actor: { kind: 'anonymous', id: null },
      action: 'session.sign_in_failed',
      target: 'GET /admin/auth/callback',
      reason: failure,
      status: 400,
      origin,
    });
    return reply
      .status(400)
      .header('cache-control', 'no-store')
      .send({ error: { code: 'sign_in_failed', message: `sign-in failed: ${failure}` } });
  }

  private seal(checks: SignInChecks): string {
    const payload = Buffer.from(JSON.stringify(checks)).toString('base64url');
    return `${payload}.${this.mac(payload)}`;
  }

  private unseal(sealed: string | undefined): SignInChecks | null {
    const cut = sealed?.lastIndexOf('.') ?? -1;
    if (!sealed || cut <= 0) return null;
    const payload = sealed.slice(0, cut);
    const given = Buffer.from(sealed.slice(cut + 1));
    const expected = Buffer.from(this.mac(payload));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    const checks = JSON.parse(Buffer.from(payload, 'base64url').toString()) as SignInChecks;
    // The cookie's own limit is the browser's to keep; this one is ours.
    return Date.now() - checks.startedAt <= SIGN_IN_MAX_SECONDS * 1000 ? checks : null;
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.config.adminAuthSecret)
      .update(`sign-in:${payload}`)
      .digest('base64url');
  }
}

/** Only the console's own pages: never a redirect to another site. */
function safeReturn(returnTo: unknown): string {
  return typeof returnTo === 'string' &&
    /^\/admin(?:[/?#][^\\]*)?$/.test(returnTo) &&
    !returnTo.startsWith('//')
    ? returnTo
    : '/admin';
}

function continuePage(to: string): string {
  const href = to.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Signed in</title><meta http-equiv="refresh" content="0;url=${href}"></head><body><p>Signed in. <a href="${href}">Continue to the console</a>.</p></body></html>`;
}

function notConfigured(reply: FastifyReply) {
  return reply.status(404).send({
    error: {
      code: 'not_found',
      message: 'sign-in with an identity provider is not configured (OIDC_ISSUER_URL)',
    },
  });
}
