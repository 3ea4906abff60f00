import { useRef, useState } from 'preact/hooks';
import { adminApi, WebhookEndpoint } from '../admin-api';
import { Loading, Problem, problemOf, useAnswer } from '../answer';
import { MerchantEvents } from './merchant-events';
import { label } from '../format';
import { Needs, useCan } from '../operator';

/** A signing secret, shown once: the operator copies it into the shop, then it is gone. */
function SecretOnce({ secret, onDone }: { secret: string; onDone: () => void }) {
  return (
    <div id="secret-box" class="secret" role="group" aria-labelledby="secret-title">
      <p id="secret-title">
        The endpoint's signing secret. Put it in the shop now: it is not shown again.
      </p>
      <code id="secret-value">{secret}</code>
      <button type="button" id="secret-done" onClick={onDone}>
        I have kept it
      </button>
    </div>
  );
}

/** The event types typed as a comma-separated list; empty: every type (null). */
function typesOf(typed: string): string[] | null {
  const types = typed
    .split(',')
    .map((type) => type.trim())
    .filter(Boolean);
  return types.length > 0 ? types : null;
}

function EndpointRow({
  endpoint,
  act,
  onEdit,
  locked,
  manage,
}: {
  endpoint: WebhookEndpoint;
  act: (work: () => Promise<string | { secret: string }>) => void;
  onEdit: (endpoint: WebhookEndpoint) => void;
  locked: boolean;
  /** Whether the operator holds webhooks:manage: without it, the row offers no action. */
  manage: boolean;
}) {
  const managed = endpoint.source === 'environment';
  const disabled = endpoint.state === 'disabled';
  return (
    <tr data-endpoint={endpoint.id}>
      <td class="url">
        {endpoint.url}
        {endpoint.description && <div class="muted">{endpoint.description}</div>}
      </td>
      <td>
        <span class={`badge ${endpoint.state}`}>{label(endpoint.state)}</span>
      </td>
      <td class="types">{endpoint.event_types ? endpoint.event_types.join(', ') : 'every type'}</td>
      <td class="row-actions">
        {manage && (
          <button
            type="button"
            class="test"
            disabled={locked}
            onClick={() =>
              act(async () => {
                const sent = await adminApi.sendTest(endpoint.id);
                return `Test event ${sent.event_id} sent to ${endpoint.url}`;
              })
            }
          >
            Send a test
          </button>
        )}
        {manage && !managed && (
          <>
            <button
              type="button"
              class="edit secondary"
              disabled={locked}
              onClick={() => onEdit(endpoint)}
            >
              Edit
            </button>
            <button
              type="button"
              class="rotate secondary"
              disabled={locked}
              onClick={() =>
                confirm(
                  `New signing secret for ${endpoint.url}? The old one keeps signing for a day.`,
                ) &&
                act(async () => ({ secret: (await adminApi.rotateSecret(endpoint.id)).secret }))
              }
            >
              Rotate secret
            </button>
            <button
              type="button"
              class="replay secondary"
              disabled={locked}
              onClick={() => {
                const since = prompt(
                  `Send ${endpoint.url} again every event it has not received since (ISO date-time):`,
                  new Date(Date.now() - 86_400_000).toISOString(),
                );
                if (since)
                  act(async () => {
                    const replayed = await adminApi.replayEndpoint(endpoint.id, since.trim());
                    return `${replayed.queued} event(s) queued for ${endpoint.url}`;
                  });
              }}
            >
              Send again since…
            </button>
            <button
              type="button"
              class={disabled ? 'enable secondary' : 'disable secondary'}
              disabled={locked}
              onClick={() =>
                act(async () => {
                  await adminApi.setEndpointEnabled(endpoint.id, disabled);
                  return `${endpoint.url} ${disabled ? 'enabled' : 'disabled'}`;
                })
              }
            >
              {disabled ? 'Enable' : 'Disable'}
            </button>
            <button
              type="button"
              class="delete secondary"
              disabled={locked}
              onClick={() =>
                confirm(`Delete ${endpoint.url} and its undelivered messages?`) &&
                act(async () => {
                  await adminApi.deleteEndpoint(endpoint.id);
                  return `${endpoint.url} deleted`;
                })
              }
            >
              Delete
            </button>
          </>
        )}
      </td>
    </tr>
  );
}

/** Webhook endpoints (add, test, rotate, disable, delete) and the merchant events sent to them. */
export function WebhooksPage({ onRefused }: { onRefused: () => void }) {
  const [version, setVersion] = useState(0);
  const [said, setSaid] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [url, setUrl] = useState('');
  const [types, setTypes] = useState('');
  const [description, setDescription] = useState('');
  const [editing, setEditing] = useState<{
    endpoint: WebhookEndpoint;
    url: string;
    types: string;
    description: string;
  } | null>(null);
  const endpoints = useAnswer(() => adminApi.endpoints(), [version], onRefused);
  const manage = useCan()('webhooks:manage');

  // One action at a time, and none while a secret waits to be kept: a secret shown once must not
  // be replaced by the next one, and a double click must not add an endpoint twice.
  const running = useRef(false);
  const [busy, setBusy] = useState(false);
  const locked = busy || secret !== null;
  function act(work: () => Promise<string | { secret: string }>) {
    if (running.current || secret !== null) return;
    running.current = true;
    setBusy(true);
    setProblem(null);
    setSaid(null);
    work()
      .then(
        (done) => {
          if (typeof done === 'string') setSaid(done);
          else setSecret(done.secret);
          setVersion((v) => v + 1);
        },
        (error: unknown) => setProblem(problemOf(error)),
      )
      .finally(() => {
        running.current = false;
        setBusy(false);
      });
  }

  function add(event: Event) {
    event.preventDefault();
    const eventTypes = typesOf(types);
    act(async () => {
      const created = await adminApi.addEndpoint({
        url: url.trim(),
        ...(description.trim() ? { description: description.trim() } : {}),
        ...(eventTypes ? { event_types: eventTypes } : {}),
      } as Parameters<typeof adminApi.addEndpoint>[0]);
      setUrl('');
      setTypes('');
      setDescription('');
      return { secret: created.secret };
    });
  }

  return (
    <main id="main">
      <h1>Webhooks</h1>
      {said && (
        <p id="said" class="said" role="status">
          {said}
        </p>
      )}
      {problem && (
        <p id="webhooks-problem" class="problem" role="alert">
          {problem}
        </p>
      )}
      {secret && <SecretOnce secret={secret} onDone={() => setSecret(null)} />}
      {!manage && (
        <Needs
          what="Adding, changing, testing or sending to endpoints"
          permission="webhooks:manage"
        />
      )}

      <h2>Endpoints</h2>
      {endpoints.state === 'loading' && <Loading what="the endpoints" />}
      {endpoints.state === 'failed' && <Problem text={endpoints.problem} />}
      {endpoints.state === 'ready' &&
        (endpoints.data.data.length === 0 ? (
          <p id="no-endpoints" class="empty">
            No endpoint yet: the shop hears of nothing.
          </p>
        ) : (
          <div class="table" tabIndex={0} role="region" aria-label="Endpoints">
            <table id="endpoints">
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">State</th>
                  <th scope="col">Events</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {endpoints.data.data.map((endpoint) => (
                  <EndpointRow
                    key={endpoint.id}
                    endpoint={endpoint}
                    act={act}
                    locked={locked}
                    manage={manage}
                    onEdit={(chosen) =>
                      setEditing({
                        endpoint: chosen,
                        url: chosen.url,
                        types: chosen.event_types?.join(', ') ?? '',
                        description: chosen.description,
                      })
                    }
                  />
                ))}
              </tbody>
            </table>
          </div>
        ))}

      {editing && (
        <form
          id="edit-form"
          onSubmit={(event) => {
            event.preventDefault();
            const { endpoint, url: newUrl, types: newTypes, description: newDescription } = editing;
            act(async () => {
              await adminApi.changeEndpoint(endpoint.id, {
                url: newUrl.trim(),
                description: newDescription.trim(),
                event_types: typesOf(newTypes),
              } as Parameters<typeof adminApi.changeEndpoint>[1]);
              setEditing(null);
              return `${newUrl.trim()} changed`;
            });
          }}
        >
          <h3>Edit {editing.endpoint.url}</h3>
          <label for="edit-url">URL</label>
          <input
            id="edit-url"
            type="url"
            required
            maxLength={2048}
            value={editing.url}
            onInput={(event) =>
              setEditing({ ...editing, url: (event.target as HTMLInputElement).value })
            }
          />
          <label for="edit-types">Event types, comma-separated (empty: every type)</label>
          <input
            id="edit-types"
            value={editing.types}
            onInput={(event) =>
              setEditing({ ...editing, types: (event.target as HTMLInputElement).value })
            }
          />
          <label for="edit-description">Description</label>
          <input
            id="edit-description"
            maxLength={200}
            value={editing.description}
            onInput={(event) =>
              setEditing({ ...editing, description: (event.target as HTMLInputElement).value })
            }
          />
          <button type="submit" disabled={locked}>
            Save
          </button>
          <button type="button" class="secondary" onClick={() => setEditing(null)}>
            Keep it as it is
          </button>
        </form>
      )}

      {manage && (
        <form id="endpoint-form" onSubmit={add}>
          <h3>Add an endpoint</h3>
          <label for="endpoint-url">URL</label>
          <input
            id="endpoint-url"
            type="url"
            required
            maxLength={2048}
            value={url}
            onInput={(event) => setUrl((event.target as HTMLInputElement).value)}
          />
          <label for="endpoint-types">Event types, comma-separated (empty: every type)</label>
          <input
            id="endpoint-types"
            value={types}
            onInput={(event) => setTypes((event.target as HTMLInputElement).value)}
          />
          <label for="endpoint-description">Description</label>
          <input
            id="endpoint-description"
            maxLength={200}
            value={description}
            onInput={(event) => setDescription((event.target as HTMLInputElement).value)}
          />
          <button type="submit" disabled={locked}>
            Add
          </button>
        </form>
      )}

      <h2>Recent events</h2>
      <MerchantEvents version={version} onRefused={onRefused} act={act} />
    </main>
  );
}
