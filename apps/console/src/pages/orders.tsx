import { useState } from 'preact/hooks';
import { adminApi, OrderFilter, OrderStatus, Schemas } from '../admin-api';
import { useCursorList } from '../answer';
import { Badge, Column, CursorTable, OrderLink, since } from '../data-table';
import { Choice, Field } from '../fields';
import { label, money, utcDays } from '../format';
import { ORDER_STATUSES } from '../../../../libs/domain/src/order-status';

type Order = Schemas['AdminOrderResponse'];

const COLUMNS: Column<Order>[] = [
  { head: 'Reference', cell: (order) => <OrderLink reference={order.reference} /> },
  {
    head: 'Status',
    cell: (order) => (
      <>
        <Badge status={order.status} />
        {order.needs_review && <span class="badge review">review</span>}
      </>
    ),
  },
  { head: 'Amount', class: 'amount', cell: (order) => money(order.amount, order.currency) },
  { head: 'Method', cell: (order) => order.payment_method ?? label(order.kind) },
  since('Created', (order) => order.created_at),
];

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

  return (
    <main id="main">
      <h1>Orders</h1>
      <form class="filters" role="search" onSubmit={search}>
        <Field
          id="search"
          label="Reference, tracking id, receipt, email or phone"
          type="search"
          maxLength={254}
          value={typed}
          onValue={setTyped}
        />
        <Choice
          id="status"
          label="Status"
          any
          options={ORDER_STATUSES}
          value={status}
          onValue={setStatus}
        />
        <Field
          id="first-day"
          label="Created from (UTC)"
          type="date"
          value={firstDay}
          onValue={setFirstDay}
        />
        <Field
          id="last-day"
          label="to (UTC, included)"
          type="date"
          value={lastDay}
          onValue={setLastDay}
        />
        <button type="submit">Search</button>
      </form>
      {answer.state === 'ready' && (
        <p id="counts" class="counts">
          {ORDER_STATUSES.map((value) => {
            const count = answer.data.counts[value];
            return `${label(value)} ${count}${count >= answer.data.count_cap ? '+' : ''}`;
          }).join(' · ')}
        </p>
      )}
      <CursorTable
        list={list}
        what="orders"
        id="orders"
        label="Orders"
        columns={COLUMNS}
        empty="No order matches."
      />
    </main>
  );
}
