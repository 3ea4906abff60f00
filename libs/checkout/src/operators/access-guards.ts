import {
  CanActivate,
  ExecutionContext,
  Injectable,
  SetMetadata,
  UseGuards,
  UseInterceptors,
  applyDecorators,
  createParamDecorator,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Permission } from '@app/domain';
import { ApiKeyIdentity, bearerKey } from '../http/api-keys';
import { CheckoutError } from '../errors/checkout-error';
import { ApiKeyRegistry } from './api-key-registry';
import { auditActorOf, Operator, operatorLabel } from './operator';
import { AccessRequest, OperatorAccess } from './operator-access';
import { OperatorActInterceptor } from './operator-act.interceptor';

interface KeyedRequest extends AccessRequest {
  apiKey?: ApiKeyIdentity;
  operator?: Operator;
  /** An admin route's act (OperatorActInterceptor writes what it did to the audit trail). */
  adminRoute?: boolean;
}

const PERMISSION = 'checkout:permission';

/**
 * The permission a route needs (on the class, or on a method to override it). Every route behind
 * AdminAccessGuard declares one; the guard refuses a route that does not.
 */
export const Requires = (permission: Permission) => SetMetadata(PERMISSION, permission);

/** Any operator at all, whatever they hold (who am I, signing out). */
const ANY_OPERATOR = 'any';
export const AnyOperator = () => SetMetadata(PERMISSION, ANY_OPERATOR);

function neededBy(
  reflector: Reflector,
  context: ExecutionContext,
): Permission | typeof ANY_OPERATOR | undefined {
  return reflector.getAllAndOverride<Permission | undefined>(PERMISSION, [
    context.getHandler(),
    context.getClass(),
  ]);
}

/**
 * Shop routes: a bootstrap key from SHOP_API_KEYS (any shop route), or a scoped API key holding
 * the route's permission (checkout:write, orders:read).
 */
@Injectable()
export class ShopKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly keys: ApiKeyRegistry,
    private readonly access: OperatorAccess,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<KeyedRequest>();
    const presented = bearerKey(request.headers.authorization);
    if (!presented) throw CheckoutError.unauthenticated();
    const identity = this.access.shopKey(presented);
    if (identity) {
      request.apiKey = identity;
      return true;
    }
    if (!this.keys.looksLikeScopedKey(presented)) throw CheckoutError.unauthenticated();
    const scoped = await this.keys.identify(presented);
    // Refusals of scoped keys go to the audit trail, as on admin routes (a made-up bootstrap
    // key above is answered without a row: the shop's hot path writes nothing for it).
    if (!scoped) {
      throw this.access.refuse(
        request,
        { kind: 'anonymous', id: null },
        'an unknown, revoked or expired scoped key',
        401,
      );
    }
    const declared = neededBy(this.reflector, context);
    const needed =
      declared === undefined || declared === ANY_OPERATOR ? 'checkout:write' : declared;
    if (!scoped.permissions.has(needed)) {
      throw this.access.refuse(
        request,
        auditActorOf(scoped),
        `lacks the scope ${needed}`,
        403,
        new CheckoutError('forbidden', `this key lacks the scope ${needed}`, {
          permission: needed,
        }),
      );
    }
    request.operator = scoped;
    // The key's id scopes idempotency keys and orders, as a bootstrap key's fingerprint does.
    request.apiKey = { name: operatorLabel(scoped), fingerprint: `key:${scoped.id}` };
    return true;
  }
}

/**
 * Admin routes: a person's console session, a scoped API key or a bootstrap admin key, holding
 * the permission the route declares (@Requires). Refusals are written to the audit trail.
 */
@Injectable()
export class AdminAccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly access: OperatorAccess,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<KeyedRequest>();
    const needed = neededBy(this.reflector, context);
    // A route that names no permission is a mistake: closed, never open.
    if (!needed) throw new Error(`${context.getClass().name} declares no permission`);
    const operator =
      needed === ANY_OPERATOR
        ? await this.access.authenticate(request)
        : await this.access.admit(request, needed);
    return actAs(request, operator);
  }
}

/**
 * The request runs as the operator's act (OperatorActInterceptor writes its audit row), named by
 * `key` (a shop's bootstrap key) or by the operator's label, fingerprinted by who they are.
 */
function actAs(request: KeyedRequest, operator: Operator, key?: ApiKeyIdentity): true {
  request.operator = operator;
  request.adminRoute = true;
  request.apiKey = key ?? {
    name: operatorLabel(operator),
    fingerprint: `${operator.kind}:${operator.id}`,
  };
  return true;
}

/**
 * Routes both a shop and the operators use (payment links): a bootstrap shop key (SHOP_API_KEYS)
 * acts as the shop, holding the route's permission; anyone else as for an admin route (a console
 * session, a scoped key, an admin key) holding it. Every change goes to the audit trail with
 * whoever made it, as on admin routes.
 */
@Injectable()
export class ShopOrOperatorGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly access: OperatorAccess,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<KeyedRequest>();
    const needed = neededBy(this.reflector, context);
    if (!needed || needed === ANY_OPERATOR) {
      throw new Error(`${context.getClass().name} declares no permission`);
    }
    const presented = bearerKey(request.headers.authorization);
    const shop = presented ? this.access.shopKey(presented) : undefined;
    const operator: Operator = shop
      ? {
          kind: 'bootstrap_key',
          id: `shop:${shop.name}`,
          email: null,
          name: shop.name,
          roles: [],
          permissions: new Set([needed]),
        }
      : await this.access.admit(request, needed);
    return actAs(request, operator, shop);
  }
}

/** What the routes a shop and the operators share are behind (ShopOrOperatorGuard). */
export const ShopOrOperatorRoutes = () =>
  applyDecorators(UseGuards(ShopOrOperatorGuard), UseInterceptors(OperatorActInterceptor));

/** The identity a guard attached to the request: name for audit, fingerprint for scoping. */
export const CallerKey = createParamDecorator(
  (_data: unknown, context: ExecutionContext): ApiKeyIdentity => {
    const request = context.switchToHttp().getRequest<KeyedRequest>();
    if (!request.apiKey) throw new Error('CallerKey used on a route without a key guard');
    return request.apiKey;
  },
);

/** The operator an admin route's guard admitted. */
export const CallerOperator = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Operator => {
    const request = context.switchToHttp().getRequest<KeyedRequest>();
    if (!request.operator) throw new Error('CallerOperator used on a route without an operator');
    return request.operator;
  },
);

/**
 * What every admin route is behind: an operator holding the route's permission
 * (AdminAccessGuard, with `@Requires`), and the request run as that operator's act
 * (OperatorActInterceptor). On the admin controllers rather than registered globally, so the
 * shop's routes pay for no interceptor.
 */
export const AdminRoutes = () =>
  applyDecorators(UseGuards(AdminAccessGuard), UseInterceptors(OperatorActInterceptor));
