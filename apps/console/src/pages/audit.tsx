import { useState } from 'preact/hooks';
import { adminApi, AuditFilter, AuditVerification } from '../admin-api';
import { isSignedOut, Loading, Problem, problemOf, useCursorList } from '../answer';
import { instant, label } from '../format';

/** What a verification found, in a sentence. */
function verdict(result: AuditVerification): string {
  if (result.ok) {
    const head = result.head ? ` Its head: row ${result.head.seq}, ${result.head.hash}.` : '';
    return `The trail is intact: ${result.checked} rows checked.${head}`;
  }
  const broken = result.first_broken;
  return `The trail was changed: row ${broken?.seq ?? '?'} — ${broken?.problem ?? 'unknown'} (${result.checked} rows before it are intact).`;
}

/** The audit trail: who did what, refusals included, newest first; and its chain verified. */
export function AuditPage({ onRefused }: { onRefused: () => void }) {
  const [filter, setFilter] = useState<AuditFilter>({});
  const [action, setAction] = useState('');
  const [actor, setActor] = useState('');
  const [requestId, setRequestId] = useState('');
  const [checking, setChecking] = useState(false);
  const [checked, setChecked] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const list = useCursorList(
    (cursor) =>
      adminApi.audit(filter, cursor).then((page) => ({
        items: page.items,
        next_cursor: page.next_cursor,
      })),
    [filter.action, filter.actor, filter.request_id],
    onRefused,
  );

  function search(event: Event) {
    event.preventDefault();
    setFilter({
      action: action.trim() || undefined,
      actor: actor.trim() || undefined,
      request_id: requestId.trim() || undefined,
    });
  }

  async function verify() {
    setChecking(true);
    setProblem(null);
    try {
      setChecked(verdict(await adminApi.verifyAudit()));
    } catch (error) {
      if (isSignedOut(error)) {
        onRefused();
        return;
      }
      setProblem(problemOf(error));
    } finally {
      setChecking(false);
    }
  }

  return (
    <main id="main">
      <h1>Audit trail</h1>
      <form class="filters" role="search" onSubmit={search}>
        <label for="audit-action">Action</label>
        <input
          id="audit-action"
          maxLength={64}
          placeholder="e.g. request.refused"
          value={action}
          onInput={(event) => setAction((event.target as HTMLInputElement).value)}
        />
        <label for="audit-actor">Actor</label>
        <input
          id="audit-actor"
          maxLength={200}
          value={actor}
          onInput={(event) => setActor((event.target as HTMLInputElement).value)}
        />
        <label for="audit-request">Request id</label>
        <input
          id="audit-request"
          maxLength={100}
          value={requestId}
          onInput={(event) => setRequestId((event.target as HTMLInputElement).value)}
        />
        <button type="submit">Search</button>
        <button type="button" class="secondary" id="verify" disabled={checking} onClick={verify}>
          {checking ? 'Checking…' : 'Verify the chain'}
        </button>
      </form>
      {checked && (
        <p id="verdict" class="said" role="status">
          {checked}
        </p>
      )}
      {problem && <Problem text={problem} />}
      {list.first.state === 'loading' && <Loading what="the trail" />}
      {list.first.state === 'failed' && <Problem text={list.first.problem} />}
      {list.first.state === 'ready' &&
        (list.items.length === 0 ? (
          <p id="no-audit" class="empty">
            Nothing recorded matches.
          </p>
        ) : (
          <div class="table" tabIndex={0} role="region" aria-label="Audit trail">
            <table id="audit">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Actor</th>
                  <th scope="col">Action</th>
                  <th scope="col">Target</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Reason</th>
                  <th scope="col">From</th>
                  <th scope="col">Request</th>
                </tr>
              </thead>
              <tbody>
                {list.items.map((event) => (
                  <tr key={event.id}>
                    <td>{instant(event.at)}</td>
                    <td>
                      {event.actor_id ?? label(event.actor_kind)}
                      {event.actor_email ? ` (${event.actor_email})` : ''}
                    </td>
                    <td>{event.action}</td>
                    <td class="url">{event.target ?? '—'}</td>
                    <td>
                      {label(event.outcome)}
                      {event.status ? ` (${event.status})` : ''}
                    </td>
                    <td class="reason">{event.reason ?? '—'}</td>
                    <td>{event.ip ?? '—'}</td>
                    <td class="url">{event.request_id ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
      {list.cursor && (
        <button type="button" id="more-audit" onClick={() => void list.loadMore()}>
          More
        </button>
      )}
      {list.moreProblem && <Problem text={list.moreProblem} />}
    </main>
  );
}
