import { useState } from 'preact/hooks';
import { adminApi, OrderFilter, OrderStatus, Schemas } from '../admin-api';
import { Loading, Problem, useCursorList } from '../answer';
import { ago, label, money, utcDays } from '../format';

const STATUSES: OrderStatus[] = [
  'pending',
  'completed',
  'failed',
  'cancelled',
  'reversed',
  'expired',
];

type Order = Schemas['AdminOrderResponse'];

function OrderRow({ order }: { order: Order }) {
  return (
    <tr>
      <td>
        <a href={`#/orders/${encodeURIComponent(order.reference)}`}>{order.reference}</a>
      </td>
      <td>
        <span class={`badge ${order.status}`}>{label(order.status)}</span>
        {order.needs_review && <span class="badge review">review</span>}
      </td>
      <td class="amount">{money(order.amount, order.currency)}</td>
      <td>{order.payment_method ?? label(order.kind)}</td>
      <td title={order.created_at}>{ago(order.created_at)}</td>
    </tr>
  );
}

/** Orders, newest first: search by any name, filter by status and days, a cursor page at a time. */
export function OrdersPage({ onRefused }: { onRefused: () => void }) {
  const [filter, setFilter] = useState<OrderFilter>({});
  const [typed, setTyped] = useState('');
  const [status, setStatus] = useState<OrderStatus | ''>('');
  const [firstDay, setFirstDay] = useState('');
  const [lastDay, setLastDay] = useState('');
  const list = useCursorList(
    (cursor) => adminApi.orders({ ...filter, cursor }),
    [filter.q, filter.status, filter.from, filter.to],
    onRefused,
  );
  const answer = list.first;

  function search(event: Event) {
    event.preventDefault();
    setFilter({
      q: typed.trim() || undefined,
      status: status || undefined,
      ...utcDays(firstDay, lastDay),
    });
  }

  const rows = list.items;
  const cursor = list.cursor;

  return (
    <main id="main">
      <h1>Orders</h1>
      <form class="filters" role="search" onSubmit={search}>
        <label for="search">Reference, tracking id, receipt, email or phone</label>
        <input
          id="search"
          type="search"
          maxLength={254}
          value={typed}
          onInput={(event) => setTyped((event.target as HTMLInputElement).value)}
        />
        <label for="status">Status</label>
        <select
          id="status"
          value={status}
          onChange={(event) => setStatus((event.target as HTMLSelectElement).value as OrderStatus)}
        >
          <option value="">any</option>
          {STATUSES.map((value) => (
            <option value={value}>{label(value)}</option>
          ))}
        </select>
        <label for="first-day">Created from (UTC)</label>
        <input
          id="first-day"
          type="date"
          value={firstDay}
          onInput={(event) => setFirstDay((event.target as HTMLInputElement).value)}
        />
        <label for="last-day">to (UTC, included)</label>
        <input
          id="last-day"
          type="date"
          value={lastDay}
          onInput={(event) => setLastDay((event.target as HTMLInputElement).value)}
        />
        <button type="submit">Search</button>
      </form>
      {answer.state === 'loading' && <Loading what="orders" />}
      {answer.state === 'failed' && <Problem text={answer.problem} />}
      {answer.state === 'ready' && (
        <>
          <p id="counts" class="counts">
            {STATUSES.map((value) => {
              const count = answer.data.counts[value];
              return `${label(value)} ${count}${count >= answer.data.count_cap ? '+' : ''}`;
            }).join(' · ')}
          </p>
          {rows.length === 0 ? (
            <p id="no-orders" class="empty">
              No order matches.
            </p>
          ) : (
            <div class="table" tabIndex={0} role="region" aria-label="Orders">
              <table id="orders">
                <thead>
                  <tr>
                    <th scope="col">Reference</th>
                    <th scope="col">Status</th>
                    <th scope="col">Amount</th>
                    <th scope="col">Method</th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((order) => (
                    <OrderRow key={order.id} order={order} />
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {cursor && (
            <button type="button" id="more" onClick={() => void list.loadMore()}>
              More orders
            </button>
          )}
          {list.moreProblem && <Problem text={list.moreProblem} />}
        </>
      )}
    </main>
  );
}
