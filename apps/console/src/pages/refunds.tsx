import { useState } from 'preact/hooks';
import { adminApi, RefundStatus, Schemas } from '../admin-api';
import { useCursorList } from '../answer';
import { Badge, Column, CursorTable, OrderLink, since } from '../data-table';
import { StatusFilter } from '../fields';
import { label, money } from '../format';
import { REFUND_STATUSES } from '../../../../libs/domain/src/refund-status';

type Refund = Schemas['AdminRefundResponse'];

const COLUMNS: Column<Refund>[] = [
  { head: 'Order', cell: (refund) => <OrderLink reference={refund.order_reference} /> },
  { head: 'Status', cell: (refund) => <Badge status={refund.status} /> },
  { head: 'Amount', class: 'amount', cell: (refund) => money(refund.amount, refund.currency) },
  { head: 'Reason', class: 'reason', cell: (refund) => refund.reason },
  { head: 'Authorised by', cell: (refund) => refund.requested_by },
  since('Asked', (refund) => refund.created_at),
];

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
      <StatusFilter
        id="refund-status"
        label="Status"
        any
        options={REFUND_STATUSES}
        value={status}
        onValue={setStatus}
      />
      <CursorTable
        list={list}
        what="refunds"
        id="refunds"
        label="Refunds"
        columns={COLUMNS}
        empty={`No refund${status ? ` is ${label(status)}` : ' yet'}.`}
      />
    </main>
  );
}
