import { WhoAmI } from '../admin-api';
import { instant } from '../format';
import {
  isRole,
  KIND_NAMES,
  Needs,
  operatorLabel,
  PERMISSION_MEANINGS,
  PERMISSIONS,
  ROLE_PERMISSIONS,
  useCan,
  useSignedIn,
} from '../operator';
import { ApiKeys } from './api-keys';
import { Approvals } from './approvals';

/** Who is signed in: kind, roles, the session's ends, and what each permission they hold allows. */
function WhoAmISection({ who }: { who: WhoAmI }) {
  const { operator, session } = who;
  const held = PERMISSIONS.filter((permission) => operator.permissions.includes(permission));
  const lacking = PERMISSIONS.filter((permission) => !operator.permissions.includes(permission));
  return (
    <section id="who-am-i" aria-labelledby="who-am-i-title">
      <h2 id="who-am-i-title">You</h2>
      <dl class="summary">
        <dt>Name</dt>
        <dd id="who-name">{operator.name}</dd>
        <dt>Email</dt>
        <dd>{operator.email ?? '—'}</dd>
        <dt>Signed in as</dt>
        <dd id="who-kind">{KIND_NAMES[operator.kind]}</dd>
        <dt>Roles</dt>
        <dd id="who-roles">{operator.roles.length > 0 ? operator.roles.join(', ') : 'none'}</dd>
        {session && (
          <>
            <dt>Signed in at</dt>
            <dd>{instant(session.signed_in_at)}</dd>
            <dt>Session ends</dt>
            <dd>
              {instant(session.idle_expires_at)} unless used before; {instant(session.expires_at)}{' '}
              at the latest
            </dd>
          </>
        )}
      </dl>
      {operator.roles.length > 0 && (
        <>
          <h3 id="roles-title">Your roles</h3>
          <ul id="roles" aria-labelledby="roles-title">
            {operator.roles.map((role) => (
              <li key={role}>
                <strong>{role}</strong>:{' '}
                {isRole(role)
                  ? ROLE_PERMISSIONS[role].join(', ')
                  : 'a role this console does not know'}
              </li>
            ))}
          </ul>
        </>
      )}
      <h3 id="permissions-title">
        What you may do{operator.kind === 'api_key' ? ' (the key’s scopes)' : ''}
      </h3>
      {held.length === 0 ? (
        <p id="no-permissions" class="empty">
          Nothing yet: ask an admin for a role.
        </p>
      ) : (
        <ul id="permissions" aria-labelledby="permissions-title">
          {held.map((permission) => (
            <li key={permission} data-permission={permission}>
              <code>{permission}</code>: {PERMISSION_MEANINGS[permission]}
            </li>
          ))}
        </ul>
      )}
      {lacking.length > 0 && (
        <details>
          <summary>What you may not do ({lacking.length})</summary>
          <ul id="permissions-lacking">
            {lacking.map((permission) => (
              <li key={permission}>
                <code>{permission}</code>: {PERMISSION_MEANINGS[permission]}
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}

/**
 * Access: who is signed in and what they may do; refund requests waiting for a second person;
 * the scoped API keys; and the way to the audit trail.
 */
export function AccessPage({ onRefused }: { onRefused: () => void }) {
  const who = useSignedIn();
  const can = useCan();
  if (!who) return null;
  return (
    <main id="main">
      <h1>Access</h1>
      <WhoAmISection who={who} />

      <section id="approvals" aria-labelledby="approvals-title">
        <h2 id="approvals-title">Refund requests waiting for a second person</h2>
        {can('admin:read') ? (
          <Approvals me={operatorLabel(who.operator)} onRefused={onRefused} />
        ) : (
          <Needs what="Reading refund requests" permission="admin:read" />
        )}
      </section>

      <section id="api-keys" aria-labelledby="api-keys-title">
        <h2 id="api-keys-title">API keys</h2>
        {can('api_keys:manage') ? (
          <ApiKeys held={who.operator.permissions} onRefused={onRefused} />
        ) : (
          <Needs what="Making, rolling or revoking API keys" permission="api_keys:manage" />
        )}
      </section>

      <section id="audit-trail" aria-labelledby="audit-trail-title">
        <h2 id="audit-trail-title">Audit trail</h2>
        {can('audit:read') ? (
          <p>
            Every sign-in, refusal, refund decision and key change is in the{' '}
            <a id="audit-link" href="#/audit">
              audit trail
            </a>
            .
          </p>
        ) : (
          <Needs what="Reading the audit trail" permission="audit:read" />
        )}
      </section>
    </main>
  );
}
