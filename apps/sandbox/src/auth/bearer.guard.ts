import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ERRORS } from '../gateway-choices';
import { GatewayHttpError } from '../http/gateway-reply';
import { Merchant, TokenService } from './token.service';

export type AuthenticatedRequest = FastifyRequest & { merchant: Merchant };

/**
 * Bearer check of every endpoint but token issue: no header → 401 with the error object
 * JSON-encoded inside `message`; an invalid or expired token → 500, standard envelope, status null.
 */
@Injectable()
export class BearerGuard implements CanActivate {
  constructor(private readonly tokens: TokenService) {}

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const header = req.headers.authorization;
    if (header === undefined) {
      throw new GatewayHttpError({
        status: 401,
        body: { message: JSON.stringify(ERRORS.missingBearer) },
      });
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const merchant = match ? this.tokens.verify(match[1]) : undefined;
    if (!merchant) {
      throw new GatewayHttpError({
        status: 500,
        body: { error: ERRORS.invalidBearer, status: null },
      });
    }
    req.merchant = merchant;
    return true;
  }
}
