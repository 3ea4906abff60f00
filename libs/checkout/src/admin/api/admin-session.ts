import { createHmac, timingSafeEqual } from 'node:crypto';
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

const sign = (secret: string, payload: string) =>
  createHmac('sha256', secret).update(payload).digest('base64url');

/**
 * Cookie sessions without server state and without the key in the cookie: the value is the key's
 * name and an expiry, signed with the key itself. Removing a key from ADMIN_API_KEYS ends its
 * sessions at the next restart.
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

  issue(presentedKey: string, now = Date.now()): string | undefined {
    const name = this.nameOfKey(presentedKey);
    if (!name) return undefined;
    const payload = `${Buffer.from(name).toString('base64url')}.${Math.floor(now / 1000) + SESSION_TTL_SECONDS}`;
    return `${payload}.${sign(presentedKey, payload)}`;
  }

  /** The key name a session cookie proves, if it is valid and unexpired. */
  verify(token: string | undefined, now = Date.now()): string | undefined {
    const parts = token?.split('.') ?? [];
    if (parts.length !== 3) return undefined;
    const [encodedName, expiry, signature] = parts;
    if (!/^\d+$/.test(expiry) || Number(expiry) * 1000 < now) return undefined;
    const name = Buffer.from(encodedName, 'base64url').toString();
    const payload = `${encodedName}.${expiry}`;
    const presented = Buffer.from(signature);
    for (const entry of this.entries) {
      if (entry.name !== name) continue;
      const expected = Buffer.from(sign(entry.secret, payload));
      if (expected.length === presented.length && timingSafeEqual(expected, presented)) return name;
    }
    return undefined;
  }

  /** Bearer admin key or a valid session cookie: the key's name, else undefined. */
  authenticate(headers: Record<string, string | string[] | undefined>): string | undefined {
    const bearer = bearerKey(headers.authorization);
    if (bearer) return this.nameOfKey(bearer);
    return this.verify(cookieValue(headers.cookie, SESSION_COOKIE));
  }
}

export function cookieValue(
  header: string | string[] | undefined,
  name: string,
): string | undefined {
  const text = Array.isArray(header) ? header.join('; ') : header;
  for (const part of text?.split(';') ?? []) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

export function sessionCookie(token: string, secure: boolean): string {
  return [
    `${SESSION_COOKIE}=${token}`,
    'Path=/admin',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${SESSION_TTL_SECONDS}`,
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; Path=/admin; HttpOnly; SameSite=Strict; Max-Age=0`;
}
