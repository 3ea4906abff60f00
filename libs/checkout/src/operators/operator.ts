import { Permission, permissionsOfRoles, Role } from '@app/domain';
import type { AuditActorKind } from '@app/persistence';

/**
 * Who calls an admin route: a person signed in through the identity provider, a scoped API key,
 * or a bootstrap key from the environment (ADMIN_API_KEYS: an admin). Never holds a secret.
 */
export interface Operator {
  kind: 'person' | 'api_key' | 'bootstrap_key';
  /** The person's subject, the scoped key's id, the bootstrap key's name. */
  id: string;
  email: string | null;
  /** How people read them: the person's email or name, the key's name. */
  name: string;
  roles: Role[];
  permissions: ReadonlySet<Permission>;
  /** A person's console session (their CSRF token is derived from its cookie). */
  sessionId?: string;
  /** A scoped key's: who answers for it (see answerableFor), and when it stops working. */
  ownerId?: string;
  expiresAt?: Date | null;
}

/**
 * Who answers for an act: a person, a bootstrap key, or for a scoped key whoever made it (and
 * so on back to a person or a bootstrap key). The four-eyes rule compares these.
 */
export function answerableFor(operator: Operator): string {
  if (operator.kind === 'api_key' && operator.ownerId) return operator.ownerId;
  return `${operator.kind}:${operator.id}`;
}

export function bootstrapAdmin(name: string): Operator {
  return {
    kind: 'bootstrap_key',
    id: name,
    email: null,
    name,
    roles: ['admin'],
    permissions: permissionsOfRoles(['admin']),
  };
}

/** Who acted, as the trail names them (never a secret: a key's name or id, a person's subject). */
export interface AuditActor {
  kind: AuditActorKind;
  id: string | null;
  email?: string | null;
  roles?: string[];
}

export function auditActorOf(operator: Operator): AuditActor {
  return {
    kind: operator.kind,
    id: operator.id,
    email: operator.email,
    roles:
      operator.kind === 'api_key'
        ? [...operator.permissions].map((scope) => `scope:${scope}`)
        : operator.roles,
  };
}

/** How an operator reads in a timeline, a refund's "requested by", a key's "created by". */
export function operatorLabel(operator: Operator): string {
  if (operator.kind === 'person') return operator.email ?? operator.name ?? operator.id;
  if (operator.kind === 'api_key') return `key:${operator.name}`;
  return operator.name;
}
