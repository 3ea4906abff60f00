import { Inject, Injectable } from '@nestjs/common';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { Permission } from '@app/domain';
import { CheckoutError } from '../errors/checkout-error';
import { ApiKeyIdentity, ApiKeyRing, bearerKey } from '../http/api-keys';
import { OriginRequest, originOf, routeOf } from '../http/request-origin';
import { ApiKeyRegistry } from './api-key-registry';
import { AuditTrail } from './audit-trail';
import { AuditActor, auditActorOf, bootstrapAdmin, Operator } from './operator';
import { OperatorSessions, SESSION_COOKIE } from './operator-sessions';

export interface AccessRequest extends OriginRequest {
  cookies?: Record<string, string | undefined>;
}

/** Methods that change nothing: they need no CSRF token, and write no act to the trail. */
export const READING: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);
export const CSRF_HEADER = 'x-csrf-token';

/**
 * Who an admin request comes from, and whether they may do what the route does: a bootstrap key
 * (ADMIN_API_KEYS), a scoped API key, or a person's console session (whose state-changing
 * requests carry the session's CSRF token). Every refusal is written to the audit trail (the
 * route, the reason, never the key or cookie presented), behind the answer.
 */
@Injectable()
export class OperatorAccess {
  private readonly adminKeys: ApiKeyRing;
  private readonly shopKeys: ApiKeyRing;

  constructor(
    @Inject(SERVICE_CONFIG) config: ServiceConfig,
    private readonly keys: ApiKeyRegistry,
    private readonly sessions: OperatorSessions,
    private readonly audit: AuditTrail,
  ) {
    this.adminKeys = new ApiKeyRing(config.adminApiKeys);
    this.shopKeys = new ApiKeyRing(config.shopApiKeys);
  }

  /** The shop's bootstrap key (SHOP_API_KEYS) this is, if it is one. */
  shopKey(presented: string): ApiKeyIdentity | undefined {
    return this.shopKeys.identify(presented);
  }

  /** The operator, allowed `needed`; else throws the refusal (401/403), written to the trail. */
  async admit(request: AccessRequest, needed: Permission): Promise<Operator> {
    const operator = await this.authenticate(request);
    if (!operator.permissions.has(needed)) {
      throw this.refuse(
        request,
        auditActorOf(operator),
        `lacks the permission ${needed}`,
        403,
        new CheckoutError('forbidden', `this needs the permission ${needed}`, {
          permission: needed,
        }),
      );
    }
    return operator;
  }

  /** The operator a request comes from (any permission); else throws the refusal. */
  async authenticate(request: AccessRequest): Promise<Operator> {
    const presented = bearerKey(request.headers.authorization);
    if (presented) {
      const bootstrap = this.adminKeys.identify(presented);
      if (bootstrap) return bootstrapAdmin(bootstrap.name);
      if (this.keys.looksLikeScopedKey(presented)) {
        const scoped = await this.keys.identify(presented);
        if (scoped) return scoped;
        throw this.refuse(request, ANONYMOUS, 'an unknown, revoked or expired scoped key', 401);
      }
      const shop = this.shopKeys.identify(presented);
      if (shop) {
        throw this.refuse(
          request,
          { kind: 'bootstrap_key', id: `shop:${shop.name}` },
          'a shop key on an admin route',
          403,
          CheckoutError.forbidden('an admin key is required'),
        );
      }
      throw this.refuse(request, ANONYMOUS, 'an unknown key', 401);
    }
    const token = request.cookies?.[SESSION_COOKIE];
    if (!token) throw this.refuse(request, ANONYMOUS, 'no key', 401);
    const found = await this.sessions.find(token);
    if (!found) throw this.refuse(request, ANONYMOUS, 'a session that has ended', 401);
    if (!READING.has(request.method ?? 'GET')) {
      const header = request.headers[CSRF_HEADER];
      if (!this.sessions.csrfMatches(token, typeof header === 'string' ? header : undefined)) {
        throw this.refuse(
          request,
          auditActorOf(found.operator),
          header ? 'a wrong CSRF token' : 'no CSRF token',
          403,
          new CheckoutError(
            'csrf_token_invalid',
            `a console request that changes something must carry the session's CSRF token in ${CSRF_HEADER}`,
          ),
        );
      }
    }
    return found.operator;
  }

  refuse(
    request: AccessRequest,
    actor: AuditActor,
    reason: string,
    status: 401 | 403,
    error: CheckoutError = CheckoutError.unauthenticated(),
  ): CheckoutError {
    this.audit.recordRefusal({
      actor,
      action: 'request.refused',
      target: routeOf(request),
      reason,
      status,
      origin: originOf(request),
    });
    return error;
  }
}

const ANONYMOUS: AuditActor = { kind: 'anonymous', id: null };
