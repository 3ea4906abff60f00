import { useState } from 'preact/hooks';
import { adminApi, RefundStatus } from '../admin-api';
import { Loading, Problem, useCursorList } from '../answer';
import { ago, label, money } from '../format';

const STATUSES: RefundStatus[] = ['requested', 'accepted', 'reversed', 'rejected', 'unknown'];

/** Refunds, newest first, by status: an unknown one is where an operator must find the outcome. */
export function RefundsPage({ onRefused }: { onRefused: () => void }) {
  const [status, setStatus] = useState<RefundStatus | ''>('');
  const list = useCursorList(
    (cursor) => adminApi.refunds(status || undefined, cursor),
    [status],
    onRefused,
  );
  return (
    <main id="main">
      <h1>Refunds</h1>
      <form class="filters" onSubmit={(event) => event.preventDefault()}>
        <label for="refund-status">Status</label>
        <select
          id="refund-status"
          value={status}
          onChange={(event) => setStatus((event.target as HTMLSelectElement).value as RefundStatus)}
        >
          <option value="">any</option>
          {STATUSES.map((value) => (
            <option value={value}>{label(value)}</option>
          ))}
        </select>
      </form>
      {list.first.state === 'loading' && <Loading what="refunds" />}
      {list.first.state === 'failed' && <Problem text={list.first.problem} />}
      {list.first.state === 'ready' &&
        (list.items.length === 0 ? (
          <p id="no-refunds" class="empty">
            No refund{status ? ` is ${label(status)}` : ' yet'}.
          </p>
        ) : (
          <div class="table" tabIndex={0} role="region" aria-label="Refunds">
            <table id="refunds">
              <thead>
                <tr>
                  <th scope="col">Order</th>
                  <th scope="col">Status</th>
                  <th scope="col">Amount</th>
                  <th scope="col">Reason</th>
                  <th scope="col">Authorised by</th>
                  <th scope="col">Asked</th>
                </tr>
              </thead>
              <tbody>
                {list.items.map((refund) => (
                  <tr key={refund.id}>
                    <td>
                      {refund.order_reference ? (
                        <a href={`#/orders/${encodeURIComponent(refund.order_reference)}`}>
                          {refund.order_reference}
                        </a>
                      ) : (
                        '—'
                      )}
                    </td>
                    <td>
                      <span class={`badge ${refund.status}`}>{label(refund.status)}</span>
                    </td>
                    <td class="amount">{money(refund.amount, refund.currency)}</td>
                    <td class="reason">{refund.reason}</td>
                    <td>{refund.requested_by}</td>
                    <td title={refund.created_at}>{ago(refund.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
      {list.cursor && (
        <button type="button" id="more-refunds" onClick={() => void list.loadMore()}>
          More refunds
        </button>
      )}
      {list.moreProblem && <Problem text={list.moreProblem} />}
    </main>
  );
}
