import { useState } from 'preact/hooks';
import { adminApi, ApiKey, ApiKeyWithSecret } from '../admin-api';
import { Problem, Said, useActs, useCursorList } from '../answer';
import { Badge, Column, CursorTable } from '../data-table';
import { Field } from '../fields';
import { ago, instant } from '../format';
import { PERMISSION_MEANINGS, PERMISSIONS } from '../operator';
import { Review } from '../review';

/** As the server bounds it (api-keys.dto.ts). */
const GRACE_MINUTES_MAX = 10_080;

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
export function ApiKeys({ held, onRefused }: { held: string[]; onRefused: () => void }) {
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

  function roll(key: ApiKey) {
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

  const columns: Column<ApiKey>[] = [
    { head: 'Name', class: 'url', cell: (key) => key.name },
    { head: 'Prefix', cell: (key) => <code>{key.prefix}…</code> },
    { head: 'Scopes', class: 'types', cell: (key) => key.scopes.join(', ') },
    {
      head: 'State',
      cell: (key) => (
        <>
          <Badge status={key.state} />
          {key.rolled_to && key.state === 'active' && (
            <div class="muted">rolled: works until {instant(key.expires_at)}</div>
          )}
        </>
      ),
    },
    {
      head: 'Made',
      cell: (key) => `${ago(key.created_at)} by ${key.created_by}`,
      tip: (key) => key.created_at,
    },
    { head: 'Expires', cell: (key) => (key.expires_at ? instant(key.expires_at) : 'never') },
    { head: 'Last used', cell: (key) => (key.last_used_at ? ago(key.last_used_at) : 'never') },
    {
      head: 'Actions',
      class: 'row-actions',
      cell: (key) =>
        key.state === 'active' && (
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
        ),
    },
  ];

  return (
    <>
      {said && <Said id="api-keys-said" text={said} />}
      {problem && <Problem id="api-keys-problem" text={problem} />}
      {made && <KeySecret made={made} onDone={() => setMade(null)} />}
      <CursorTable
        list={list}
        what="the keys"
        more="More keys"
        moreId="more-api-keys"
        id="api-key-list"
        label="Scoped API keys"
        columns={columns}
        rowData={(key) => ({ 'api-key': key.id })}
        empty="No scoped key yet."
        emptyId="no-api-keys"
      />

      {changing?.step === 'roll' && (
        <Review
          id="roll-form"
          titleId="roll-title"
          question={
            <>
              A new secret for the key <strong>{changing.key.name}</strong> ({changing.key.prefix}
              …)? The old one keeps working for the grace period, while its users change to the new
              one.
            </>
          }
          submit="Roll the key"
          submitId="roll-submit"
          busy={locked}
          onSubmit={() => roll(changing.key)}
          onCancel={() => setChanging(null)}
        >
          <Field
            id="roll-grace"
            label={`Grace period (minutes, 0 to ${GRACE_MINUTES_MAX})`}
            type="number"
            min={0}
            max={GRACE_MINUTES_MAX}
            step={1}
            required
            value={grace}
            onValue={setGrace}
          />
        </Review>
      )}
      {changing?.step === 'revoke' && (
        <Review
          id="revoke-confirm"
          titleId="revoke-title"
          question={
            <>
              Revoke the key <strong>{changing.key.name}</strong> ({changing.key.prefix}…)? It is
              refused from its next request on; this cannot be undone.
            </>
          }
          submit="Revoke the key"
          submitId="revoke-submit"
          busy={locked}
          onSubmit={() => revoke(changing.key)}
          onCancel={() => setChanging(null)}
          cancel="Keep it"
        />
      )}

      <form id="api-key-form" onSubmit={create}>
        <h3>Make a key</h3>
        <Field
          id="api-key-name"
          label="Name (what the key is for)"
          required
          maxLength={100}
          placeholder="shop-backend"
          value={name}
          onValue={setName}
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
        <Field
          id="api-key-expires"
          label="Expires (your local time; empty: never)"
          type="datetime-local"
          value={expires}
          onValue={setExpires}
        />
        <button type="submit" id="api-key-submit" disabled={locked}>
          Make the key
        </button>
      </form>
    </>
  );
}
