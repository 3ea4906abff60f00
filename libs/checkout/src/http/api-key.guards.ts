import {
  CanActivate,
  ExecutionContext,
  Inject,
  Injectable,
  createParamDecorator,
} from '@nestjs/common';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { ApiKeyIdentity, ApiKeyRing, bearerKey } from './api-keys';
import { CheckoutError } from '../errors/checkout-error';
import { AuditActor, AuditTrail } from '../operators/audit-trail';
import { OriginRequest, originOf, routeOf } from './request-origin';

interface KeyedRequest extends OriginRequest {
  apiKey?: ApiKeyIdentity;
}

/** Shop routes: a key from SHOP_API_KEYS. */
@Injectable()
export class ShopKeyGuard implements CanActivate {
  private readonly shopKeys: ApiKeyRing;

  constructor(@Inject(SERVICE_CONFIG) config: ServiceConfig) {
    this.shopKeys = new ApiKeyRing(config.shopApiKeys);
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<KeyedRequest>();
    const presented = bearerKey(request.headers.authorization);
    if (!presented) throw CheckoutError.unauthenticated();
    const identity = this.shopKeys.identify(presented);
    if (!identity) throw CheckoutError.unauthenticated();
    request.apiKey = identity;
    return true;
  }
}

/**
 * Admin routes: a key from ADMIN_API_KEYS; a valid shop key is known but not allowed (403). Every
 * refusal is written to the audit trail (the route, never the key presented), behind the answer.
 */
@Injectable()
export class AdminKeyGuard implements CanActivate {
  private readonly adminKeys: ApiKeyRing;
  private readonly shopKeys: ApiKeyRing;

  constructor(
    @Inject(SERVICE_CONFIG) config: ServiceConfig,
    private readonly audit: AuditTrail,
  ) {
    this.adminKeys = new ApiKeyRing(config.adminApiKeys);
    this.shopKeys = new ApiKeyRing(config.shopApiKeys);
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<KeyedRequest>();
    const presented = bearerKey(request.headers.authorization);
    const identity = presented ? this.adminKeys.identify(presented) : null;
    if (identity) {
      request.apiKey = identity;
      return true;
    }
    const shop = presented ? this.shopKeys.identify(presented) : null;
    const refusal = shop
      ? CheckoutError.forbidden('an admin key is required')
      : CheckoutError.unauthenticated();
    this.audit.recordRefusal({
      actor: shop
        ? { kind: 'bootstrap_key', id: `shop:${shop.name}` }
        : { kind: 'anonymous', id: null },
      action: 'request.refused',
      target: routeOf(request),
      reason: shop ? 'a shop key on an admin route' : presented ? 'an unknown key' : 'no key',
      status: shop ? 403 : 401,
      origin: originOf(request),
    });
    throw refusal;
  }
}

/** The audit trail's name for the caller of an admin route (a bootstrap key until people sign in). */
export function auditActorOf(key: ApiKeyIdentity): AuditActor {
  return { kind: 'bootstrap_key', id: key.name, roles: ['admin'] };
}

/** The identity a guard attached to the request: name for audit, fingerprint for scoping. */
export const CallerKey = createParamDecorator(
  (_data: unknown, context: ExecutionContext): ApiKeyIdentity => {
    const request = context.switchToHttp().getRequest<KeyedRequest>();
    if (!request.apiKey) throw new Error('CallerKey used on a route without a key guard');
    return request.apiKey;
  },
);
