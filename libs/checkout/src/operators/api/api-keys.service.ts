import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { isUuid, Permission } from '@app/domain';
import { ApiKeyEntity } from '@app/persistence';
import { CheckoutError } from '../../errors/checkout-error';
import { newestFirstList } from '../../http/page-cursor';
import { ApiKeyRegistry, isLive } from '../api-key-registry';
import { recordCurrentAct } from '../audit-trail';
import { answerableFor, Operator, operatorLabel } from '../operator';
import { ListApiKeysQuery } from './api-keys.dto';

export interface ApiKeyView {
  id: string;
  name: string;
  /** The secret's first characters: enough to tell keys apart, never to use one. */
  prefix: string;
  scopes: string[];
  state: 'active' | 'expired' | 'revoked';
  created_by: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  rolled_to: string | null;
}

const LIST = 'admin-api-keys';
const DEFAULT_GRACE_MINUTES = 60;

/**
 * Scoped API keys: made, rolled and revoked by people (or keys) holding api_keys:manage, who can
 * only grant scopes they hold themselves. Each change and its audit row commit together; the
 * secret is in the creating answer only.
 */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly registry: ApiKeyRegistry,
  ) {}

  async create(
    operator: Operator,
    input: { name: string; scopes: Permission[]; expiresAt: Date | null },
    now = new Date(),
  ): Promise<{ api_key: ApiKeyView; secret: string }> {
    refuseUnheld(operator, input.scopes);
    if (input.expiresAt && input.expiresAt.getTime() <= now.getTime()) {
      throw CheckoutError.invalid([{ field: 'expires_at', reason: 'must be in the future' }]);
    }
    const expiresAt = earliest(input.expiresAt, operator.expiresAt ?? null);
    const minted = this.registry.mint();
    const key = await this.dataSource.transaction(async (manager) => {
      const keys = manager.getRepository(ApiKeyEntity);
      const saved = await keys.save(
        keys.create({
          name: input.name.trim(),
          prefix: minted.prefix,
          secretHash: minted.secretHash,
          scopes: input.scopes,
          createdBy: operatorLabel(operator),
          createdById: answerableFor(operator),
          createdAt: now,
          // A key made by a key lives no longer than its maker.
          expiresAt,
        }),
      );
      await recordCurrentAct(manager, {
        action: 'api_key.created',
        target: `api_key:${saved.id}`,
        after: summaryOf(saved),
      });
      return saved;
    });
    return { api_key: viewOf(key, now), secret: minted.secret };
  }

  async list(query: ListApiKeysQuery, now = new Date()) {
    const limit = query.limit ?? 50;
    const pages = newestFirstList(LIST, {}, query.cursor);
    const rows = this.dataSource.getRepository(ApiKeyEntity).createQueryBuilder('k');
    const page = await pages.page(
      rows,
      { alias: 'k', table: 'api_keys', column: 'created_at', at: (k) => k.createdAt },
      limit,
    );
    return {
      items: page.rows.map((key) => viewOf(key, now)),
      limit,
      next_cursor: page.next_cursor,
    };
  }

  async revoke(operator: Operator, id: string, now = new Date()): Promise<ApiKeyView> {
    const revoked = await this.dataSource.transaction(async (manager) => {
      const key = await this.lock(manager, id);
      if (key.revokedAt) return key;
      refuseUnheld(operator, key.scopes as Permission[]);
      const before = summaryOf(key);
      key.revokedAt = now;
      await manager.getRepository(ApiKeyEntity).save(key);
      await recordCurrentAct(manager, {
        action: 'api_key.revoked',
        target: `api_key:${key.id}`,
        before,
        after: summaryOf(key),
      });
      return key;
    });
    this.registry.forgetCached();
    return viewOf(revoked, now);
  }

  /**
   * A new secret for the key's name and scopes; the old one keeps working for the grace period
   * (its expiry is brought forward to then, never pushed back).
   */
  async roll(
    operator: Operator,
    id: string,
    graceMinutes = DEFAULT_GRACE_MINUTES,
    now = new Date(),
  ): Promise<{ api_key: ApiKeyView; secret: string; previous: ApiKeyView }> {
    const minted = this.registry.mint();
    const result = await this.dataSource.transaction(async (manager) => {
      const old = await this.lock(manager, id);
      if (!isLive(old, now)) {
        throw new CheckoutError('api_key_revoked', 'a revoked or expired key cannot be rolled');
      }
      if (old.rolledTo) {
        throw new CheckoutError(
          'api_key_revoked',
          `this key was already rolled (to ${old.rolledTo}): roll that one`,
        );
      }
      refuseUnheld(operator, old.scopes as Permission[]);
      const keys = manager.getRepository(ApiKeyEntity);
      const fresh = await keys.save(
        keys.create({
          name: old.name,
          prefix: minted.prefix,
          secretHash: minted.secretHash,
          scopes: old.scopes,
          createdBy: operatorLabel(operator),
          createdById: answerableFor(operator),
          createdAt: now,
          expiresAt: earliest(old.expiresAt, operator.expiresAt ?? null),
        }),
      );
      const before = summaryOf(old);
      const graceEnd = new Date(now.getTime() + graceMinutes * 60_000);
      old.expiresAt = old.expiresAt && old.expiresAt < graceEnd ? old.expiresAt : graceEnd;
      old.rolledTo = fresh.id;
      await keys.save(old);
      await recordCurrentAct(manager, {
        action: 'api_key.rolled',
        target: `api_key:${old.id}`,
        before,
        after: { ...summaryOf(old), new_key: summaryOf(fresh), grace_minutes: graceMinutes },
      });
      return { fresh, old };
    });
    this.registry.forgetCached();
    return {
      api_key: viewOf(result.fresh, now),
      secret: minted.secret,
      previous: viewOf(result.old, now),
    };
  }

  private async lock(manager: EntityManager, id: string): Promise<ApiKeyEntity> {
    const key = isUuid(id)
      ? await manager
          .getRepository(ApiKeyEntity)
          .createQueryBuilder('k')
          .setLock('pessimistic_write')
          .where('k.id = :id', { id })
          .getOne()
      : null;
    if (!key) throw CheckoutError.notFound('api_key', id);
    return key;
  }
}

function earliest(a: Date | null, b: Date | null): Date | null {
  if (!a) return b;
  if (!b) return a;
  return a.getTime() <= b.getTime() ? a : b;
}

/** Nobody grants (or takes away) what they do not hold. */
function refuseUnheld(operator: Operator, scopes: readonly Permission[]): void {
  const unheld = scopes.filter((scope) => !operator.permissions.has(scope));
  if (unheld.length > 0) {
    throw new CheckoutError(
      'forbidden',
      `scopes: you cannot grant what you do not hold (${unheld.join(', ')})`,
      { scopes: unheld },
    );
  }
}

function summaryOf(key: ApiKeyEntity): Record<string, unknown> {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    expires_at: key.expiresAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
  };
}

function viewOf(key: ApiKeyEntity, now: Date): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    state: key.revokedAt ? 'revoked' : isLive(key, now) ? 'active' : 'expired',
    created_by: key.createdBy,
    created_at: key.createdAt.toISOString(),
    expires_at: key.expiresAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    rolled_to: key.rolledTo,
  };
}
