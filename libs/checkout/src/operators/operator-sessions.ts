import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { isRole, permissionsOfRoles, Role } from '@app/domain';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { OperatorSessionEntity } from '@app/persistence';
import { Operator } from './operator';

/** The console's session cookie: a random token, HttpOnly, SameSite=Strict. */
export const SESSION_COOKIE = 'pc_session';
/** last_seen_at is moved at most this often (the idle limit is counted in minutes). */
const SEEN_MARK_MS = 30_000;

export interface SignedInPerson {
  subject: string;
  email: string | null;
  name: string | null;
  roles: Role[];
}

/**
 * People's console sessions, kept on the server (operator_sessions) so that they can be revoked:
 * the browser holds a random token, the table its SHA-256. A session ends when revoked, after
 * ADMIN_SESSION_IDLE_MINUTES without a request, or ADMIN_SESSION_MAX_HOURS after sign-in. Each
 * session's CSRF token is derived from its token (HMAC), so nothing more is stored.
 */
@Injectable()
export class OperatorSessions {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async open(
    person: SignedInPerson,
    manager: EntityManager,
    now = new Date(),
  ): Promise<{ token: string; session: OperatorSessionEntity }> {
    const token = randomBytes(32).toString('base64url');
    const sessions = manager.getRepository(OperatorSessionEntity);
    const session = await sessions.save(
      sessions.create({
        tokenHash: tokenHashOf(token),
        subject: person.subject,
        email: person.email,
        displayName: person.name,
        roles: person.roles,
        createdAt: now,
        lastSeenAt: now,
        expiresAt: new Date(now.getTime() + this.config.adminSessionMaxHours * 3_600_000),
      }),
    );
    return { token, session };
  }

  /** The live session a cookie's token names, as an operator; null when it has ended. */
  async find(
    token: string,
    now = new Date(),
  ): Promise<{ operator: Operator; session: OperatorSessionEntity } | null> {
    const session = await this.dataSource
      .getRepository(OperatorSessionEntity)
      .findOneBy({ tokenHash: tokenHashOf(token), revokedAt: IsNull() });
    if (!session || !this.isLive(session, now)) return null;
    if (now.getTime() - session.lastSeenAt.getTime() > SEEN_MARK_MS) {
      session.lastSeenAt = now;
      await this.dataSource.query(
        `UPDATE operator_sessions SET last_seen_at = $2 WHERE id = $1 AND last_seen_at < $2`,
        [session.id, now],
      );
    }
    return { operator: personOf(session), session };
  }

  isLive(session: OperatorSessionEntity, now: Date): boolean {
    const idleMs = this.config.adminSessionIdleMinutes * 60_000;
    return (
      !session.revokedAt &&
      session.expiresAt.getTime() > now.getTime() &&
      now.getTime() - session.lastSeenAt.getTime() <= idleMs
    );
  }

  idleEndOf(session: OperatorSessionEntity): Date {
    const idleEnd = session.lastSeenAt.getTime() + this.config.adminSessionIdleMinutes * 60_000;
    return new Date(Math.min(idleEnd, session.expiresAt.getTime()));
  }

  /** Ends one session, or every session of its person ("sign out everywhere"): how many ended. */
  async revoke(
    manager: EntityManager,
    which: { sessionId: string } | { subject: string },
    now = new Date(),
  ): Promise<number> {
    const [sql, value] =
      'sessionId' in which ? ['id = $1', which.sessionId] : ['subject = $1', which.subject];
    const rows = (await manager.query(
      `UPDATE operator_sessions SET revoked_at = $2 WHERE ${sql} AND revoked_at IS NULL
       RETURNING id`,
      [value, now],
    )) as [unknown[], number];
    return rows[1];
  }

  csrfTokenOf(token: string): string {
    return createHmac('sha256', this.config.adminAuthSecret)
      .update(`csrf:${token}`)
      .digest('base64url');
  }

  csrfMatches(token: string, presented: string | undefined): boolean {
    if (!presented) return false;
    const expected = Buffer.from(this.csrfTokenOf(token));
    const given = Buffer.from(presented);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

function tokenHashOf(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function personOf(session: OperatorSessionEntity): Operator {
  const roles = session.roles.filter(isRole);
  return {
    kind: 'person',
    id: session.subject,
    email: session.email,
    name: session.displayName ?? session.email ?? session.subject,
    roles,
    permissions: permissionsOfRoles(roles),
    sessionId: session.id,
  };
}
