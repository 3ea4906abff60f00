import { Controller, Get, Header, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { DataSource } from 'typeorm';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { AdminRoutes, AnyOperator, CallerOperator } from '../access-guards';
import { recordCurrentAct } from '../audit-trail';
import { Operator } from '../operator';
import { AccessRequest } from '../operator-access';
import { OperatorSessions, SESSION_COOKIE } from '../operator-sessions';
import { ConsoleSessionResponse, SignedOutResponse, WhoAmIResponse } from './operators-responses';
import { sessionCookie } from '../session-cookie';

/** Who is calling, what they may do, and (for people) their console session. */
@ApiTags('admin: operators')
@ApiBearerAuth()
@ApiExtraModels(ConsoleSessionResponse)
@AdminRoutes()
@AnyOperator()
@Controller('v1/admin/session')
export class SessionController {
  constructor(
    private readonly sessions: OperatorSessions,
    private readonly dataSource: DataSource,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'Who is calling: their roles and permissions, and a person’s session and CSRF token',
  })
  @ApiOkResponse({ type: WhoAmIResponse })
  @Header('Cache-Control', 'no-store')
  async whoAmI(@CallerOperator() operator: Operator, @Req() request: AccessRequest) {
    const token = request.cookies?.[SESSION_COOKIE];
    const found = operator.kind === 'person' && token ? await this.sessions.find(token) : null;
    return {
      operator: {
        kind: operator.kind,
        id: operator.id,
        email: operator.email,
        name: operator.name,
        roles: operator.roles,
        permissions: [...operator.permissions],
      },
      session:
        found && token
          ? {
              signed_in_at: found.session.createdAt.toISOString(),
              idle_expires_at: this.sessions.idleEndOf(found.session).toISOString(),
              expires_at: found.session.expiresAt.toISOString(),
              csrf_token: this.sessions.csrfTokenOf(token),
            }
          : null,
    };
  }

  @Post('sign-out')
  @HttpCode(200)
  @ApiOperation({ summary: 'End this console session' })
  @ApiOkResponse({ type: SignedOutResponse })
  async signOut(
    @CallerOperator() operator: Operator,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const ended = await this.end(operator, false);
    reply.clearCookie(SESSION_COOKIE, sessionCookie(this.config));
    return { sessions_ended: ended };
  }

  @Post('sign-out-everywhere')
  @HttpCode(200)
  @ApiOperation({ summary: 'End every console session of the signed-in person' })
  @ApiOkResponse({ type: SignedOutResponse })
  async signOutEverywhere(
    @CallerOperator() operator: Operator,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const ended = await this.end(operator, true);
    reply.clearCookie(SESSION_COOKIE, sessionCookie(this.config));
    return { sessions_ended: ended };
  }

  private end(operator: Operator, everywhere: boolean): Promise<number> {
    const sessionId = operator.sessionId;
    if (operator.kind !== 'person' || !sessionId) return Promise.resolve(0);
    return this.dataSource.transaction(async (manager) => {
      const ended = await this.sessions.revoke(
        manager,
        everywhere ? { subject: operator.id } : { sessionId },
      );
      await recordCurrentAct(manager, {
        action: everywhere ? 'session.signed_out_everywhere' : 'session.signed_out',
        target: everywhere ? `person:${operator.id}` : `session:${sessionId}`,
        after: { sessions_ended: ended },
      });
      return ended;
    });
  }
}
