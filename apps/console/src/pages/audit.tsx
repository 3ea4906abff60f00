import { useState } from 'preact/hooks';
import { adminApi, AuditEvent, AuditFilter, AuditVerification } from '../admin-api';
import { isSignedOut, Problem, problemOf, Said, useCursorList } from '../answer';
import { Column, CursorTable } from '../data-table';
import { Field } from '../fields';
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

const COLUMNS: Column<AuditEvent>[] = [
  { head: 'When', cell: (event) => instant(event.at) },
  {
    head: 'Actor',
    cell: (event) =>
      `${event.actor_id ?? label(event.actor_kind)}${event.actor_email ? ` (${event.actor_email})` : ''}`,
  },
  { head: 'Action', cell: (event) => event.action },
  { head: 'Target', class: 'url', cell: (event) => event.target ?? '—' },
  {
    head: 'Outcome',
    cell: (event) => `${label(event.outcome)}${event.status ? ` (${event.status})` : ''}`,
  },
  { head: 'Reason', class: 'reason', cell: (event) => event.reason ?? '—' },
  { head: 'From', cell: (event) => event.ip ?? '—' },
  { head: 'Request', class: 'url', cell: (event) => event.request_id ?? '—' },
];

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
        <Field
          id="audit-action"
          label="Action"
          maxLength={64}
          placeholder="e.g. request.refused"
          value={action}
          onValue={setAction}
        />
        <Field id="audit-actor" label="Actor" maxLength={200} value={actor} onValue={setActor} />
        <Field
          id="audit-request"
          label="Request id"
          maxLength={100}
          value={requestId}
          onValue={setRequestId}
        />
        <button type="submit">Search</button>
        <button type="button" class="secondary" id="verify" disabled={checking} onClick={verify}>
          {checking ? 'Checking…' : 'Verify the chain'}
        </button>
      </form>
      {checked && <Said id="verdict" text={checked} />}
      {problem && <Problem text={problem} />}
      <CursorTable
        list={list}
        what="the trail"
        more="More"
        id="audit"
        label="Audit trail"
        columns={COLUMNS}
        empty="Nothing recorded matches."
      />
    </main>
  );
}
