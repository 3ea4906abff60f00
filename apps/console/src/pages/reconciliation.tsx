import { useState } from 'preact/hooks';
import { adminApi, ReconciliationReport } from '../admin-api';
import { Problem, useActs, useAnswer } from '../answer';
import { Answered } from '../data-table';
import { Field } from '../fields';
import { instant, label } from '../format';
import { Needs, useCan } from '../operator';

function Report({ report }: { report: ReconciliationReport }) {
  const violations = Object.entries(report.invariant_violations).filter(
    ([, list]) => Array.isArray(list) && list.length > 0,
  );
  return (
    <section id="report" aria-labelledby="report-title">
      <h2 id="report-title">Report of {instant(report.started_at)}</h2>
      <p id="report-summary">
        {report.orders_checked} orders checked over {report.since_hours} h ({label(report.trigger)}
        {report.requested_by ? `, ${report.requested_by}` : ''}): {report.mismatch_count} mismatch
        {report.mismatch_count === 1 ? '' : 'es'}
        {report.truncated ? ', the window was cut' : ''}.
      </p>
      {report.gateway_mismatches.length > 0 && (
        <ul id="mismatches">
          {report.gateway_mismatches.map((mismatch) => (
            <li>
              <a href={`#/orders/${encodeURIComponent(mismatch.reference)}`}>
                {mismatch.reference}
              </a>
              : {mismatch.problem}
            </li>
          ))}
        </ul>
      )}
      {violations.length > 0 && (
        <ul id="violations">
          {violations.map(([name, list]) => (
            <li>
              {label(name)}: {(list as unknown[]).length}
            </li>
          ))}
        </ul>
      )}
      {report.lookup_failures.length > 0 && (
        <ul id="lookup-failures">
          {report.lookup_failures.map((failure) => (
            <li>
              {failure.reference}: {failure.error}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Compare recent orders with the gateway now; the latest reports, nightly and asked for. */
export function ReconciliationPage({ onRefused }: { onRefused: () => void }) {
  const [version, setVersion] = useState(0);
  const [hours, setHours] = useState('48');
  const [shown, setShown] = useState<ReconciliationReport | null>(null);
  const { act, busy, problem } = useActs(() => setVersion((v) => v + 1));
  const reports = useAnswer(() => adminApi.reports(), [version], onRefused);
  const operate = useCan()('operations:write');

  function run(event: Event) {
    event.preventDefault();
    act(async () => {
      setShown(await adminApi.reconcile(Number(hours)));
      return null;
    });
  }

  return (
    <main id="main">
      <h1>Reconciliation</h1>
      {!operate && <Needs what="Comparing with the gateway" permission="operations:write" />}
      {operate && (
        <form id="reconcile-form" onSubmit={run}>
          <Field
            id="reconcile-hours"
            label="Orders created or changed in the last (hours)"
            type="number"
            min={1}
            max={2160}
            required
            value={hours}
            onValue={setHours}
          />
          <button type="submit" disabled={busy}>
            {busy ? 'Comparing…' : 'Compare with the gateway now'}
          </button>
        </form>
      )}
      <p class="hint">It only reports: nothing is repaired.</p>
      {problem && <Problem text={problem} />}
      {shown && <Report report={shown} />}
      <h2>Latest reports</h2>
      <Answered answer={reports} what="reports">
        {(data) =>
          data.items.length === 0 ? (
            <p id="no-reports" class="empty">
              No report yet.
            </p>
          ) : (
            <ul id="reports">
              {data.items.map((report) => (
                <li key={report.id}>
                  <button type="button" class="link" onClick={() => setShown(report)}>
                    {instant(report.started_at)}
                  </button>{' '}
                  {label(report.trigger)}: {report.orders_checked} checked, {report.mismatch_count}{' '}
                  mismatches
                </li>
              ))}
            </ul>
          )
        }
      </Answered>
    </main>
  );
}
