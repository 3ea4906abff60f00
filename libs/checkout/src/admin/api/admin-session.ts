import fastifyCookie, { CookieSerializeOptions, UnsignResult } from '@fastify/cookie';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { withHooksExceptOnHotRoutes } from '@app/common';
import { ApiKeyRing, bearerKey } from '../../http/api-keys';

/** The browser's proof of an admin key for pages it navigates to (the queue dashboard). */
export const SESSION_COOKIE = 'admin_session';
export const SESSION_TTL_SECONDS = 8 * 3600;

interface KeyEntry {
  name: string;
  secret: string;
}

/** Same "name:secret" or "secret" entries as ADMIN_API_KEYS; the name is looked up by the ring. */
function entriesOf(configured: string[], ring: ApiKeyRing): KeyEntry[] {
  return configured.map((entry) => {
    const separator = entry.indexOf(':');
    const secret = separator > 0 ? entry.slice(separator + 1) : entry;
    return { secret, name: ring.identify(secret)?.name ?? '' };
  });
}

const mac = (secret: string, value: string) =>
  createHmac('sha256', secret).update(value).digest('base64url');

const nameIn = (value: string) =>
  Buffer.from(value.slice(0, value.indexOf('.')), 'base64url').toString();

const INVALID: UnsignResult = { valid: false, renew: false, value: null };

/**
 * Cookie sessions without server state and without the key in the cookie. @fastify/cookie reads,
 * writes and signs the cookie; the value is the key's name and an expiry, and the signer signs it
 * with the key it names, so removing a key from ADMIN_API_KEYS ends its sessions at the next
 * restart and no other secret has to be configured.
 */
export class AdminSessions {
  private readonly ring: ApiKeyRing;
  private readonly entries: KeyEntry[];

  constructor(adminKeys: string[]) {
    this.ring = new ApiKeyRing(adminKeys);
    this.entries = entriesOf(adminKeys, this.ring);
  }

  /** The admin key's name for a presented key, else undefined. */
  nameOfKey(presented: string): string | undefined {
    return this.ring.identify(presented)?.name;
  }

  /** The unsigned session value for a presented admin key: its name and an expiry. */
  sessionFor(presentedKey: string, now = Date.now()): string | undefined {
    const name = this.nameOfKey(presentedKey);
    if (!name) return undefined;
    return `${Buffer.from(name).toString('base64url')}.${Math.floor(now / 1000) + SESSION_TTL_SECONDS}`;
  }

  /** @fastify/cookie's signer (its `secret` option): an HMAC with the admin key the value names. */
  readonly signer = {
    sign: (value: string): string => {
      const entry = this.entries.find((e) => e.name === nameIn(value));
      if (!entry) throw new Error('a session for an unknown admin key');
      return `${value}.${mac(entry.secret, value)}`;
    },
    unsign: (signed: string): UnsignResult => {
      const cut = signed.lastIndexOf('.');
      if (cut <= 0) return INVALID;
      const value = signed.slice(0, cut);
      const presented = Buffer.from(signed.slice(cut + 1));
      const name = nameIn(value);
      for (const entry of this.entries) {
        if (entry.name !== name) continue;
        const expected = Buffer.from(mac(entry.secret, value));
        if (expected.length === presented.length && timingSafeEqual(expected, presented)) {
          return { valid: true, renew: false, value };
        }
      }
      return INVALID;
    },
  };

  /** The key name a signed session cookie proves, if it is valid and unexpired. */
  verify(signed: string | undefined, now = Date.now()): string | undefined {
    if (!signed) return undefined;
    const { valid, value } = this.signer.unsign(signed);
    if (!valid || !value) return undefined;
    const expiry = value.slice(value.indexOf('.') + 1);
    if (!/^\d+$/.test(expiry) || Number(expiry) * 1000 < now) return undefined;
    return nameIn(value);
  }

  /** Bearer admin key or a valid session cookie (parsed by @fastify/cookie): the key's name. */
  authenticate(request: Pick<FastifyRequest, 'headers' | 'cookies'>): string | undefined {
    const bearer = bearerKey(request.headers.authorization);
    if (bearer) return this.nameOfKey(bearer);
    return this.verify(request.cookies?.[SESSION_COOKIE]);
  }
}

/** Signed, HttpOnly, SameSite=Strict, scoped to /admin; Secure on https (secureCookies). */
export function sessionCookieOptions(secure: boolean): CookieSerializeOptions {
  return {
    signed: true,
    path: '/admin',
    httpOnly: true,
    sameSite: 'strict',
    maxAge: SESSION_TTL_SECONDS,
    secure,
  };
}

/**
 * Parses cookies on every request but those of hot routes that do not need them, and signs the
 * admin session's (before any route uses them).
 */
export async function useAdminSessionCookies(
  fastify: FastifyInstance,
  adminKeys: string[],
): Promise<void> {
  // Its parsing hook and its onSend, which writes the cookies a route set.
  await withHooksExceptOnHotRoutes(fastify, 'cookies', ['onRequest', 'onSend'], () =>
    fastify.register(fastifyCookie, {
      secret: new AdminSessions(adminKeys).signer,
      hook: 'onRequest',
    }),
  );
}
