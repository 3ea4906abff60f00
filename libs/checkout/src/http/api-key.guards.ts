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

interface KeyedRequest {
  headers: Record<string, string | string[] | undefined>;
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

/** Admin routes: a key from ADMIN_API_KEYS; a valid shop key is known but not allowed (403). */
@Injectable()
export class AdminKeyGuard implements CanActivate {
  private readonly adminKeys: ApiKeyRing;
  private readonly shopKeys: ApiKeyRing;

  constructor(@Inject(SERVICE_CONFIG) config: ServiceConfig) {
    this.adminKeys = new ApiKeyRing(config.adminApiKeys);
    this.shopKeys = new ApiKeyRing(config.shopApiKeys);
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<KeyedRequest>();
    const presented = bearerKey(request.headers.authorization);
    if (!presented) throw CheckoutError.unauthenticated();
    const identity = this.adminKeys.identify(presented);
    if (identity) {
      request.apiKey = identity;
      return true;
    }
    if (this.shopKeys.identify(presented))
      throw CheckoutError.forbidden('an admin key is required');
    throw CheckoutError.unauthenticated();
  }
}

/** The identity a guard attached to the request: name for audit, fingerprint for scoping. */
export const CallerKey = createParamDecorator(
  (_data: unknown, context: ExecutionContext): ApiKeyIdentity => {
    const request = context.switchToHttp().getRequest<KeyedRequest>();
    if (!request.apiKey) throw new Error('CallerKey used on a route without a key guard');
    return request.apiKey;
  },
);
