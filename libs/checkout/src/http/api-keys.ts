import { createHash, hash, timingSafeEqual } from 'node:crypto';

export interface ApiKeyIdentity {
  /** Safe to log and store: "alice" for an entry "alice:key", else "key-<fingerprint>". */
  name: string;
  /** Stable per key, never the key itself (idempotency scopes use it). */
  fingerprint: string;
}

/**
 * SHA-256 of a key: crypto.hash (one call, no Hash object; every request with a key takes two)
 * where Node has it (20.12 and later), else a Hash.
 */
function sha256(key: string): Buffer {
  return typeof hash === 'function'
    ? hash('sha256', key, 'buffer')
    : createHash('sha256').update(key).digest();
}

export function fingerprintOf(key: string): string {
  return sha256(key).toString('hex').slice(0, 16);
}

const digestOf = (key: string): Buffer => sha256(key);

/**
 * A key list entry is either "secret" or "name:secret". Lookup compares SHA-256 digests in constant
 * time against every entry, so response timing says nothing about how much of a guessed key
 * matched, how long the keys are, or which entry it was.
 */
export class ApiKeyRing {
  private readonly entries: { digest: Buffer; identity: ApiKeyIdentity }[];

  constructor(configured: string[]) {
    this.entries = configured.map((entry) => {
      const separator = entry.indexOf(':');
      const secret = separator > 0 ? entry.slice(separator + 1) : entry;
      const fingerprint = fingerprintOf(secret);
      const name = separator > 0 ? entry.slice(0, separator) : `key-${fingerprint.slice(0, 8)}`;
      return { digest: digestOf(secret), identity: { name, fingerprint } };
    });
  }

  identify(presented: string): ApiKeyIdentity | undefined {
    const candidate = digestOf(presented);
    let found: ApiKeyIdentity | undefined;
    for (const entry of this.entries) {
      if (timingSafeEqual(entry.digest, candidate)) found = entry.identity;
    }
    return found;
  }
}

/** Reads "Authorization: Bearer <key>"; anything else is no key at all. */
export function bearerKey(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
