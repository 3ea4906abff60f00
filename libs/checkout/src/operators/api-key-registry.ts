import { createHmac, randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { isPermission, Permission } from '@app/domain';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { ApiKeyEntity } from '@app/persistence';
import { Operator } from './operator';

/** Every scoped key starts so: secret scanners (and people) recognise a leaked one. */
export const API_KEY_PREFIX = 'pck_';
/** Characters of a key kept and shown to tell keys apart (the prefix and 8 more). */
const SHOWN_LENGTH = API_KEY_PREFIX.length + 8;
/** A key's row is looked up again after this long (a revocation elsewhere takes effect by then). */
const CACHE_MS = 5_000;
/** last_used_at is written at most this often per key. */
const USE_MARK_MS = 60_000;

interface CachedKey {
  key: ApiKeyEntity | null;
  readAt: number;
}

/**
 * Scoped API keys, from the api_keys table: minted here (the secret is returned once), stored as a
 * keyed hash (HMAC-SHA256 under ADMIN_AUTH_SECRET: a stolen copy of the table cannot be tried
 * offline without the secret), and recognised on every request.
 */
@Injectable()
export class ApiKeyRegistry {
  private readonly logger = new Logger(ApiKeyRegistry.name);
  private readonly cache = new Map<string, CachedKey>();
  private readonly marked = new Map<string, number>();

  constructor(
    private readonly dataSource: DataSource,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  /** A new secret, its hash and the characters shown of it. */
  mint(): { secret: string; secretHash: string; prefix: string } {
    const secret = `${API_KEY_PREFIX}${randomBytes(24).toString('base64url')}`;
    return { secret, secretHash: this.hashOf(secret), prefix: secret.slice(0, SHOWN_LENGTH) };
  }

  looksLikeScopedKey(presented: string): boolean {
    return presented.startsWith(API_KEY_PREFIX);
  }

  /** The operator a presented key is, or null (unknown, revoked, expired). */
  async identify(presented: string, now = new Date()): Promise<Operator | null> {
    const hash = this.hashOf(presented);
    let cached = this.cache.get(hash);
    if (!cached || Date.now() - cached.readAt > CACHE_MS) {
      const key = await this.dataSource.getRepository(ApiKeyEntity).findOneBy({ secretHash: hash });
      cached = { key, readAt: Date.now() };
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(hash, cached);
    }
    const key = cached.key;
    if (!key || !isLive(key, now)) return null;
    this.markUsed(key.id, now);
    return {
      kind: 'api_key',
      id: key.id,
      email: null,
      name: key.name,
      roles: [],
      permissions: new Set(key.scopes.filter(isPermission) as Permission[]),
      ownerId: key.createdById,
      expiresAt: key.expiresAt,
    };
  }

  /** A key changed here (revoked, rolled): this replica stops trusting its cached row at once. */
  forgetCached(): void {
    this.cache.clear();
  }

  private hashOf(secret: string): string {
    return createHmac('sha256', this.config.adminAuthSecret)
      .update(`api-key:${secret}`)
      .digest('hex');
  }

  private markUsed(id: string, now: Date): void {
    const last = this.marked.get(id) ?? 0;
    if (now.getTime() - last < USE_MARK_MS) return;
    this.marked.set(id, now.getTime());
    if (this.marked.size > 10_000) this.marked.clear();
    // Behind the answer: when a key was last used is worth a write a minute, not a wait.
    this.dataSource
      .query(`UPDATE api_keys SET last_used_at = $2 WHERE id = $1`, [id, now])
      .catch((error: Error) => this.logger.warn(`last_used_at not written: ${error.message}`));
  }
}

export function isLive(key: ApiKeyEntity, now: Date): boolean {
  return !key.revokedAt && (!key.expiresAt || key.expiresAt.getTime() > now.getTime());
}
