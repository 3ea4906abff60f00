import type { CookieSerializeOptions } from '@fastify/cookie';
import { ServiceConfig } from '@app/config';

/** Cookies are Secure wherever the api is reached over https (always in production). */
export function secureCookies(config: ServiceConfig): boolean {
  return config.publicBaseUrl.startsWith('https://');
}

/** The console session's cookie: HttpOnly, SameSite=Strict, Secure (above). */
export function sessionCookie(config: ServiceConfig): CookieSerializeOptions {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    secure: secureCookies(config),
    maxAge: config.adminSessionMaxHours * 3600,
  };
}
