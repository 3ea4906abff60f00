import { useState } from 'preact/hooks';
import { adminApi, WebhookEndpoint } from '../admin-api';
import { Problem, Said, useActs, useAnswer } from '../answer';
import { Answered, Badge, Column, DataTable } from '../data-table';
import { Field } from '../fields';
import { MerchantEvents } from './merchant-events';
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

/** An endpoint as typed in its form: the event types as a comma-separated list. */
interface EndpointDraft {
  url: string;
  types: string;
  description: string;
}
const NO_DRAFT: EndpointDraft = { url: '', types: '', description: '' };

/** The fields of an endpoint, added or edited (ids `${prefix}-url`, ...). */
function EndpointFields({
  prefix,
  draft,
  onDraft,
}: {
  prefix: string;
  draft: EndpointDraft;
  onDraft: (draft: EndpointDraft) => void;
}) {
  return (
    <>
      <Field
        id={`${prefix}-url`}
        label="URL"
        type="url"
        required
        maxLength={2048}
        value={draft.url}
        onValue={(url) => onDraft({ ...draft, url })}
      />
      <Field
        id={`${prefix}-types`}
        label="Event types, comma-separated (empty: every type)"
        value={draft.types}
        onValue={(types) => onDraft({ ...draft, types })}
      />
      <Field
        id={`${prefix}-description`}
        label="Description"
        maxLength={200}
        value={draft.description}
        onValue={(description) => onDraft({ ...draft, description })}
      />
    </>
  );
}

/** What may be done to an endpoint (an endpoint from the environment is only tested). */
function EndpointActions({
  endpoint,
  act,
  onEdit,
  locked,
}: {
  endpoint: WebhookEndpoint;
  act: (work: () => Promise<string | { secret: string }>) => void;
  onEdit: (endpoint: WebhookEndpoint) => void;
  locked: boolean;
}) {
  const managed = endpoint.source === 'environment';
  const disabled = endpoint.state === 'disabled';
  return (
    <>
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
      {!managed && (
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
              ) && act(async () => ({ secret: (await adminApi.rotateSecret(endpoint.id)).secret }))
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
    </>
  );
}

/** Webhook endpoints (add, test, rotate, disable, delete) and the merchant events sent to them. */
export function WebhooksPage({ onRefused }: { onRefused: () => void }) {
  const [version, setVersion] = useState(0);
  const [secret, setSecret] = useState<string | null>(null);
  const [draft, setDraft] = useState<EndpointDraft>(NO_DRAFT);
  const [editing, setEditing] = useState<(EndpointDraft & { endpoint: WebhookEndpoint }) | null>(
    null,
  );
  const endpoints = useAnswer(() => adminApi.endpoints(), [version], onRefused);
  const manage = useCan()('webhooks:manage');

  // One action at a time, and none while a secret waits to be kept: a secret shown once must not
  // be replaced by the next one, and a double click must not add an endpoint twice.
  const acts = useActs(() => setVersion((v) => v + 1));
  const { said, problem } = acts;
  const locked = acts.busy || secret !== null;
  function act(work: () => Promise<string | { secret: string }>) {
    if (secret !== null) return;
    acts.act(async () => {
      const done = await work();
      if (typeof done === 'string') return done;
      setSecret(done.secret);
      return null;
    });
  }
  const columns: (Column<WebhookEndpoint> | false)[] = [
    {
      head: 'URL',
      class: 'url',
      cell: (endpoint) => (
        <>
          {endpoint.url}
          {endpoint.description && <div class="muted">{endpoint.description}</div>}
        </>
      ),
    },
    { head: 'State', cell: (endpoint) => <Badge status={endpoint.state} /> },
    {
      head: 'Events',
      class: 'types',
      cell: (endpoint) => (endpoint.event_types ? endpoint.event_types.join(', ') : 'every type'),
    },
    manage && {
      head: 'Actions',
      class: 'row-actions',
      cell: (endpoint) => (
        <EndpointActions
          endpoint={endpoint}
          act={act}
          locked={locked}
          onEdit={(chosen) =>
            setEditing({
              endpoint: chosen,
              url: chosen.url,
              types: chosen.event_types?.join(', ') ?? '',
              description: chosen.description,
            })
          }
        />
      ),
    },
  ];

  function add(event: Event) {
    event.preventDefault();
    const { url, types, description } = draft;
    const eventTypes = typesOf(types);
    act(async () => {
      const created = await adminApi.addEndpoint({
        url: url.trim(),
        ...(description.trim() ? { description: description.trim() } : {}),
        ...(eventTypes ? { event_types: eventTypes } : {}),
      } as Parameters<typeof adminApi.addEndpoint>[0]);
      setDraft(NO_DRAFT);
      return { secret: created.secret };
    });
  }

  return (
    <main id="main">
      <h1>Webhooks</h1>
      {said && <Said text={said} />}
      {problem && <Problem id="webhooks-problem" text={problem} />}
      {secret && <SecretOnce secret={secret} onDone={() => setSecret(null)} />}
      {!manage && (
        <Needs
          what="Adding, changing, testing or sending to endpoints"
          permission="webhooks:manage"
        />
      )}

      <h2>Endpoints</h2>
      <Answered answer={endpoints} what="the endpoints">
        {(data) => (
          <DataTable
            id="endpoints"
            label="Endpoints"
            columns={columns}
            rows={data.data}
            rowData={(endpoint) => ({ endpoint: endpoint.id })}
            empty="No endpoint yet: the shop hears of nothing."
          />
        )}
      </Answered>

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
          <EndpointFields
            prefix="edit"
            draft={editing}
            onDraft={(draft) => setEditing({ ...editing, ...draft })}
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
          <EndpointFields prefix="endpoint" draft={draft} onDraft={setDraft} />
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
