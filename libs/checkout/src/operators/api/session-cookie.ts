import type { CookieSerializeOptions } from '@fastify/cookie';
import { ServiceConfig } from '@app/config';

/** The console session's cookie: HttpOnly, SameSite=Strict, Secure wherever the api is on https. */
export function sessionCookie(config: ServiceConfig): CookieSerializeOptions {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    secure: config.publicBaseUrl.startsWith('https://'),
    maxAge: config.adminSessionMaxHours * 3600,
  };
}
