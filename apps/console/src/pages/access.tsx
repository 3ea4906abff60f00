import { useRef, useState } from 'preact/hooks';
import {
  adminApi,
  ApiKey,
  ApiKeyWithSecret,
  RefundApproval,
  RefundApprovalStatus,
  WhoAmI,
} from '../admin-api';
import { Loading, Problem, problemOf, useCursorList } from '../answer';
import { ago, instant, label, money } from '../format';
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

const APPROVAL_STATUSES: RefundApprovalStatus[] = ['pending', 'approved', 'declined', 'expired'];
/** As the server bounds them (api-keys.dto.ts, refund reasons). */
const GRACE_MINUTES_MAX = 10_080;
const REASON_MAX_LENGTH = 500;

/** One thing at a time per section, a double click doing it once: the section says what it did. */
function useActs(after: () => void) {
  const running = useRef(false);
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  function act(work: () => Promise<string | null>) {
    if (running.current) return;
    running.current = true;
    setBusy(true);
    setSaid(null);
    setProblem(null);
    work()
      .then(
        (done) => {
          setSaid(done);
          after();
        },
        (error: unknown) => setProblem(problemOf(error)),
      )
      .finally(() => {
        running.current = false;
        setBusy(false);
      });
  }
  return { act, busy, said, problem, setProblem };
}

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

/** What a refund request is, in a sentence: amount, order, attempt, who asked and why. */
function requestText(approval: RefundApproval): string {
  const what = `${money(approval.amount, approval.currency)}${approval.partial ? ' (partial)' : ''}`;
  const attempt =
    approval.attempt === null ? '' : `, attempt ${approval.attempt}'s payment (a double payment)`;
  return `the refund of ${what} of order ${approval.order_reference ?? '—'}${attempt}, asked for by ${approval.requested_by} because “${approval.reason}”`;
}

/**
 * Refund requests above the approval threshold: approved (the refund is made and sent once) or
 * declined with a reason, by someone holding refunds:approve other than their requester.
 */
function Approvals({ me, onRefused }: { me: string; onRefused: () => void }) {
  const approver = useCan()('refunds:approve');
  const [status, setStatus] = useState<RefundApprovalStatus>('pending');
  const [version, setVersion] = useState(0);
  const [deciding, setDeciding] = useState<{
    approval: RefundApproval;
    step: 'approve' | 'decline';
  } | null>(null);
  const [reason, setReason] = useState('');
  const list = useCursorList(
    (cursor) => adminApi.approvals(status, cursor),
    [status, version],
    onRefused,
  );
  const { act, busy, said, problem, setProblem } = useActs(() => setVersion((v) => v + 1));

  function decide(approval: RefundApproval, step: 'approve' | 'decline') {
    setReason('');
    setDeciding({ approval, step });
  }

  function approve(approval: RefundApproval) {
    act(async () => {
      const made = await adminApi.approve(approval.id);
      setDeciding(null);
      return `Refund ${made.refund.status ?? 'requested'} for order ${approval.order_reference ?? '—'}`;
    });
  }

  function decline(event: Event, approval: RefundApproval) {
    event.preventDefault();
    if (reason.trim() === '') {
      setProblem('Say why it is declined: the requester reads it.');
      return;
    }
    act(async () => {
      await adminApi.decline(approval.id, reason.trim());
      setDeciding(null);
      return `Refund request for order ${approval.order_reference ?? '—'} declined`;
    });
  }

  const pendingShown = status === 'pending';
  return (
    <>
      <form class="filters" onSubmit={(event) => event.preventDefault()}>
        <label for="approval-status">Status</label>
        <select
          id="approval-status"
          value={status}
          onChange={(event) => {
            setDeciding(null);
            setStatus((event.target as HTMLSelectElement).value as RefundApprovalStatus);
          }}
        >
          {APPROVAL_STATUSES.map((value) => (
            <option value={value}>{label(value)}</option>
          ))}
        </select>
      </form>
      {!approver && pendingShown && (
        <Needs what="Approving or declining a refund request" permission="refunds:approve" />
      )}
      {said && (
        <p id="approvals-said" class="said" role="status">
          {said}
        </p>
      )}
      {problem && (
        <p id="approvals-problem" class="problem" role="alert">
          {problem}
        </p>
      )}
      {list.first.state === 'loading' && <Loading what="refund requests" />}
      {list.first.state === 'failed' && <Problem text={list.first.problem} />}
      {list.first.state === 'ready' &&
        (list.items.length === 0 ? (
          <p id="no-approvals" class="empty">
            No refund request is {label(status)}.
          </p>
        ) : (
          <div class="table" tabIndex={0} role="region" aria-label="Refund requests">
            <table id="approval-list">
              <thead>
                <tr>
                  <th scope="col">Order</th>
                  <th scope="col">Amount</th>
                  <th scope="col">Reason</th>
                  <th scope="col">Asked by</th>
                  <th scope="col">Asked</th>
                  <th scope="col">{pendingShown ? 'Decide by' : 'Status'}</th>
                  {!pendingShown && <th scope="col">Decision</th>}
                  {pendingShown && approver && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {list.items.map((approval) => {
                  const mine = approval.requested_by === me;
                  return (
                    <tr key={approval.id} data-approval={approval.id}>
                      <td>
                        {approval.order_reference ? (
                          <a href={`#/orders/${encodeURIComponent(approval.order_reference)}`}>
                            {approval.order_reference}
                          </a>
                        ) : (
                          '—'
                        )}
                        {approval.attempt !== null && (
                          <div class="muted">attempt {approval.attempt} (double payment)</div>
                        )}
                      </td>
                      <td class="amount">
                        {money(approval.amount, approval.currency)}
                        {approval.partial ? ' (partial)' : ''}
                      </td>
                      <td class="reason">{approval.reason}</td>
                      <td>
                        {approval.requested_by}
                        {mine ? ' (you)' : ''}
                      </td>
                      <td title={approval.requested_at}>{ago(approval.requested_at)}</td>
                      {pendingShown ? (
                        <td>{instant(approval.expires_at)}</td>
                      ) : (
                        <td>
                          <span class={`badge ${approval.status}`}>{label(approval.status)}</span>
                        </td>
                      )}
                      {!pendingShown && (
                        <td class="reason">
                          {approval.decided_by
                            ? `${approval.decided_by}, ${instant(approval.decided_at)}${approval.decision_reason ? `: ${approval.decision_reason}` : ''}`
                            : '—'}
                        </td>
                      )}
                      {pendingShown && approver && (
                        <td class="row-actions">
                          {mine ? (
                            <span class="muted">Yours: another person approves it</span>
                          ) : (
                            <button
                              type="button"
                              id={`approve-${approval.id}`}
                              data-testid={`approve-${approval.id}`}
                              class="approve"
                              disabled={busy}
                              onClick={() => decide(approval, 'approve')}
                            >
                              Approve…
                            </button>
                          )}
                          <button
                            type="button"
                            id={`decline-${approval.id}`}
                            data-testid={`decline-${approval.id}`}
                            class="decline secondary"
                            disabled={busy}
                            onClick={() => decide(approval, 'decline')}
                          >
                            Decline…
                          </button>
                        </td>
                      )}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        ))}
      {list.cursor && (
        <button type="button" id="more-approvals" onClick={() => void list.loadMore()}>
          More refund requests
        </button>
      )}
      {list.moreProblem && <Problem text={list.moreProblem} />}

      {deciding?.step === 'approve' && (
        <div
          id="approval-review"
          class="review"
          role="group"
          aria-labelledby="approval-review-title"
        >
          <p id="approval-review-title">
            Approve {requestText(deciding.approval)}? The refund is sent to the gateway now; this
            cannot be undone.
          </p>
          <button
            type="button"
            id="approve-submit"
            disabled={busy}
            onClick={() => approve(deciding.approval)}
          >
            Approve and send the refund
          </button>
          <button type="button" class="secondary" onClick={() => setDeciding(null)}>
            Not now
          </button>
        </div>
      )}
      {deciding?.step === 'decline' && (
        <form
          id="decline-form"
          class="review"
          onSubmit={(event) => decline(event, deciding.approval)}
        >
          <p id="decline-title">Decline {requestText(deciding.approval)}?</p>
          <label for="decline-reason">Why (the requester reads it)</label>
          <input
            id="decline-reason"
            required
            maxLength={REASON_MAX_LENGTH}
            value={reason}
            onInput={(event) => setReason((event.target as HTMLInputElement).value)}
          />
          <button type="submit" id="decline-submit" disabled={busy}>
            Decline the request
          </button>
          <button type="button" class="secondary" onClick={() => setDeciding(null)}>
            Not now
          </button>
        </form>
      )}
    </>
  );
}

/** A key's secret, shown once: the operator copies it into a secret store, then it is gone. */
function KeySecret({ made, onDone }: { made: ApiKeyWithSecret; onDone: () => void }) {
  const [copied, setCopied] = useState<string | null>(null);
  async function copy() {
    try {
      await navigator.clipboard.writeText(made.secret);
      setCopied('Copied.');
    } catch {
      setCopied('This browser did not copy it: select the secret and copy it yourself.');
    }
  }
  return (
    <div id="api-key-secret-box" class="secret" role="group" aria-labelledby="api-key-secret-title">
      <p id="api-key-secret-title">
        <strong>Copy it now: it will not be shown again.</strong> The secret of the key{' '}
        {made.api_key.name} ({made.api_key.prefix}…); keep it in a secret store.
      </p>
      <code id="api-key-secret">{made.secret}</code>
      {made.previous && (
        <p id="api-key-previous">
          The old secret keeps working until {instant(made.previous.expires_at)}.
        </p>
      )}
      <div class="buttons">
        <button
          type="button"
          id="api-key-secret-copy"
          class="secondary"
          onClick={() => void copy()}
        >
          Copy
        </button>
        <button type="button" id="api-key-secret-done" onClick={onDone}>
          I have kept it
        </button>
      </div>
      <p class="hint" role="status">
        {copied}
      </p>
    </div>
  );
}

/** An id for a scope's checkbox: "refunds:approve" → "scope-refunds-approve". */
const scopeId = (scope: string) => `scope-${scope.replace(/[^a-z0-9]+/gi, '-')}`;

/**
 * Scoped API keys for machines: made with scopes the operator holds (its secret shown once),
 * rolled (the old secret kept for a grace period) and revoked, after a confirmation.
 */
function ApiKeys({ held, onRefused }: { held: string[]; onRefused: () => void }) {
  const [version, setVersion] = useState(0);
  const list = useCursorList((cursor) => adminApi.apiKeys(cursor), [version], onRefused);
  const { act, busy, said, problem, setProblem } = useActs(() => setVersion((v) => v + 1));
  const [made, setMade] = useState<ApiKeyWithSecret | null>(null);
  const [changing, setChanging] = useState<{ key: ApiKey; step: 'roll' | 'revoke' } | null>(null);
  const [grace, setGrace] = useState('60');
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>([]);
  const [expires, setExpires] = useState('');
  // No other action while a secret waits to be kept: it must not be replaced unseen.
  const locked = busy || made !== null;
  const scopesOffered = PERMISSIONS.filter((scope) => held.includes(scope));

  function create(event: Event) {
    event.preventDefault();
    if (locked) return;
    if (scopes.length === 0) {
      setProblem('Choose at least one scope.');
      return;
    }
    // The field is the browser's local time; the API takes an instant.
    const at = expires ? new Date(expires) : null;
    if (at && Number.isNaN(at.getTime())) {
      setProblem('The expiry is not a date and time.');
      return;
    }
    act(async () => {
      const created = await adminApi.createApiKey({
        name: name.trim(),
        scopes: PERMISSIONS.filter((scope) => scopes.includes(scope)),
        ...(at ? { expires_at: at.toISOString() } : {}),
      });
      setMade(created);
      setName('');
      setScopes([]);
      setExpires('');
      return `Key ${created.api_key.name} made`;
    });
  }

  function roll(event: Event, key: ApiKey) {
    event.preventDefault();
    act(async () => {
      const rolled = await adminApi.rollApiKey(key.id, Number(grace));
      setChanging(null);
      setMade(rolled);
      return `Key ${key.name} rolled`;
    });
  }

  function revoke(key: ApiKey) {
    act(async () => {
      await adminApi.revokeApiKey(key.id);
      setChanging(null);
      return `Key ${key.name} revoked`;
    });
  }

  return (
    <>
      {said && (
        <p id="api-keys-said" class="said" role="status">
          {said}
        </p>
      )}
      {problem && (
        <p id="api-keys-problem" class="problem" role="alert">
          {problem}
        </p>
      )}
      {made && <KeySecret made={made} onDone={() => setMade(null)} />}
      {list.first.state === 'loading' && <Loading what="the keys" />}
      {list.first.state === 'failed' && <Problem text={list.first.problem} />}
      {list.first.state === 'ready' &&
        (list.items.length === 0 ? (
          <p id="no-api-keys" class="empty">
            No scoped key yet.
          </p>
        ) : (
          <div class="table" tabIndex={0} role="region" aria-label="Scoped API keys">
            <table id="api-key-list">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Prefix</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">State</th>
                  <th scope="col">Made</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {list.items.map((key) => (
                  <tr key={key.id} data-api-key={key.id}>
                    <td class="url">{key.name}</td>
                    <td>
                      <code>{key.prefix}…</code>
                    </td>
                    <td class="types">{key.scopes.join(', ')}</td>
                    <td>
                      <span class={`badge ${key.state}`}>{label(key.state)}</span>
                      {key.rolled_to && key.state === 'active' && (
                        <div class="muted">rolled: works until {instant(key.expires_at)}</div>
                      )}
                    </td>
                    <td title={key.created_at}>
                      {ago(key.created_at)} by {key.created_by}
                    </td>
                    <td>{key.expires_at ? instant(key.expires_at) : 'never'}</td>
                    <td>{key.last_used_at ? ago(key.last_used_at) : 'never'}</td>
                    <td class="row-actions">
                      {key.state === 'active' && (
                        <>
                          {/* A rolled key is on its way out: its successor is rolled instead. */}
                          {!key.rolled_to && (
                            <button
                              type="button"
                              id={`roll-${key.id}`}
                              class="roll secondary"
                              disabled={locked}
                              onClick={() => {
                                setGrace('60');
                                setChanging({ key, step: 'roll' });
                              }}
                            >
                              Roll…
                            </button>
                          )}
                          <button
                            type="button"
                            id={`revoke-${key.id}`}
                            class="revoke secondary"
                            disabled={locked}
                            onClick={() => setChanging({ key, step: 'revoke' })}
                          >
                            Revoke…
                          </button>
                        </>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
      {list.cursor && (
        <button type="button" id="more-api-keys" onClick={() => void list.loadMore()}>
          More keys
        </button>
      )}
      {list.moreProblem && <Problem text={list.moreProblem} />}

      {changing?.step === 'roll' && (
        <form id="roll-form" class="review" onSubmit={(event) => roll(event, changing.key)}>
          <p id="roll-title">
            A new secret for the key <strong>{changing.key.name}</strong> ({changing.key.prefix}
            …)? The old one keeps working for the grace period, while its users change to the new
            one.
          </p>
          <label for="roll-grace">Grace period (minutes, 0 to {GRACE_MINUTES_MAX})</label>
          <input
            id="roll-grace"
            type="number"
            min={0}
            max={GRACE_MINUTES_MAX}
            step={1}
            required
            value={grace}
            onInput={(event) => setGrace((event.target as HTMLInputElement).value)}
          />
          <button type="submit" id="roll-submit" disabled={locked}>
            Roll the key
          </button>
          <button type="button" class="secondary" onClick={() => setChanging(null)}>
            Not now
          </button>
        </form>
      )}
      {changing?.step === 'revoke' && (
        <div id="revoke-confirm" class="review" role="group" aria-labelledby="revoke-title">
          <p id="revoke-title">
            Revoke the key <strong>{changing.key.name}</strong> ({changing.key.prefix}…)? It is
            refused from its next request on; this cannot be undone.
          </p>
          <button
            type="button"
            id="revoke-submit"
            disabled={locked}
            onClick={() => revoke(changing.key)}
          >
            Revoke the key
          </button>
          <button type="button" class="secondary" onClick={() => setChanging(null)}>
            Keep it
          </button>
        </div>
      )}

      <form id="api-key-form" onSubmit={create}>
        <h3>Make a key</h3>
        <label for="api-key-name">Name (what the key is for)</label>
        <input
          id="api-key-name"
          required
          maxLength={100}
          placeholder="shop-backend"
          value={name}
          onInput={(event) => setName((event.target as HTMLInputElement).value)}
        />
        <fieldset>
          <legend>Scopes (only those you hold)</legend>
          {scopesOffered.map((scope) => (
            <label class="check" key={scope}>
              <input
                id={scopeId(scope)}
                type="checkbox"
                value={scope}
                checked={scopes.includes(scope)}
                onChange={(event) => {
                  const checked = (event.target as HTMLInputElement).checked;
                  setScopes((chosen) =>
                    checked ? [...chosen, scope] : chosen.filter((other) => other !== scope),
                  );
                }}
              />
              <span>
                <code>{scope}</code>: {PERMISSION_MEANINGS[scope]}
              </span>
            </label>
          ))}
        </fieldset>
        <label for="api-key-expires">Expires (your local time; empty: never)</label>
        <input
          id="api-key-expires"
          type="datetime-local"
          value={expires}
          onInput={(event) => setExpires((event.target as HTMLInputElement).value)}
        />
        <button type="submit" id="api-key-submit" disabled={locked}>
          Make the key
        </button>
      </form>
    </>
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
