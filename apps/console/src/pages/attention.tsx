import { useState } from 'preact/hooks';
import { adminApi, DeadLetter, NotificationStatus, Schemas } from '../admin-api';
import { Problem, Said, useActs, useAnswer, useCursorList } from '../answer';
import { Answered, Badge, Column, CursorTable, DataTable, OrderLink, since } from '../data-table';
import { Field, StatusFilter } from '../fields';
import { label, money } from '../format';
import { Needs, useCan } from '../operator';

const NOTIFICATION_STATUSES: NotificationStatus[] = [
  'received',
  'queued',
  'applied',
  'unmatched',
  'ignored',
  'failed',
];

type Stuck = Schemas['AdminStuckOrder'];
type Notification = Schemas['AdminNotification'];

const STUCK_COLUMNS: Column<Stuck>[] = [
  { head: 'Order', cell: ({ order }) => <OrderLink reference={order.reference} /> },
  { head: 'Why', cell: ({ reasons }) => reasons.map(label).join(', ') },
  { head: 'Amount', class: 'amount', cell: ({ order }) => money(order.amount, order.currency) },
  since('Created', ({ order }) => order.created_at),
];

/** A row's action, offered to those who may operate. */
function Replay({ text, onClick }: { text: string; onClick: () => void }) {
  return (
    <button type="button" class="replay secondary" onClick={onClick}>
      {text}
    </button>
  );
}

/**
 * What needs an operator: orders stuck (pending too long, flagged, unknown), the gateway's
 * notifications (replay one), and jobs whose retries ran out (replay one).
 */
export function AttentionPage({ onRefused }: { onRefused: () => void }) {
  const [minutes, setMinutes] = useState(30);
  const [typedMinutes, setTypedMinutes] = useState('30');
  const [status, setStatus] = useState<NotificationStatus | ''>('failed');
  const [version, setVersion] = useState(0);
  const { act, said, problem } = useActs(() => setVersion((v) => v + 1));
  const stuck = useCursorList((cursor) => adminApi.stuck(minutes, cursor), [minutes], onRefused);
  const notifications = useCursorList(
    (cursor) => adminApi.notifications(status || undefined, cursor),
    [status, version],
    onRefused,
  );
  const dead = useAnswer(() => adminApi.deadLetters(), [version], onRefused);
  // Verifying again and retrying change things: operations:write.
  const operate = useCan()('operations:write');

  const notificationColumns: (Column<Notification> | false)[] = [
    since('Received', (notification) => notification.received_at),
    { head: 'Status', cell: (notification) => <Badge status={notification.status} /> },
    {
      head: 'Order',
      cell: (notification) =>
        notification.merchant_reference ?? notification.order_tracking_id ?? '—',
    },
    { head: 'Attempts', cell: (notification) => notification.attempts },
    { head: 'Last error', class: 'reason', cell: (notification) => notification.last_error ?? '—' },
    operate && {
      head: 'Actions',
      cell: (notification) => (
        <Replay
          text="Verify again"
          onClick={() =>
            act(async () => {
              await adminApi.replayNotification(notification.id);
              return 'Notification sent through verification again';
            })
          }
        />
      ),
    },
  ];
  const deadColumns: (Column<DeadLetter> | false)[] = [
    since('Failed', (job) => job.failed_at),
    { head: 'Queue', cell: (job) => label(job.queue) },
    { head: 'Job', cell: (job) => label(job.name) },
    { head: 'Why', class: 'reason', cell: (job) => job.failed_reason ?? '—' },
    operate && {
      head: 'Actions',
      cell: (job) => (
        <Replay
          text="Retry"
          onClick={() =>
            act(async () => {
              await adminApi.replayDeadLetter(job.queue, job.id);
              return `Job ${job.id} retried`;
            })
          }
        />
      ),
    },
  ];

  return (
    <main id="main">
      <h1>Needs attention</h1>
      {said && <Said text={said} />}
      {problem && <Problem id="attention-problem" text={problem} />}
      {!operate && (
        <Needs
          what="Verifying a notification again or retrying a job"
          permission="operations:write"
        />
      )}

      <h2>Stuck orders</h2>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          setMinutes(Math.max(1, Number(typedMinutes) || 30));
        }}
      >
        <Field
          id="stuck-minutes"
          label="Pending for more than (minutes)"
          type="number"
          min={1}
          max={10080}
          value={typedMinutes}
          onValue={setTypedMinutes}
        />
        <button type="submit">Show</button>
      </form>
      <CursorTable
        list={stuck}
        what="stuck orders"
        id="stuck"
        label="Stuck orders"
        columns={STUCK_COLUMNS}
        rowKey={({ order }) => order.id}
        empty="Nothing is stuck."
      />

      <h2>Notifications from the gateway</h2>
      <StatusFilter
        id="notification-status"
        label="Status"
        any
        options={NOTIFICATION_STATUSES}
        value={status}
        onValue={setStatus}
      />
      <CursorTable
        list={notifications}
        what="notifications"
        id="notifications"
        label="Notifications"
        columns={notificationColumns}
        rowData={(notification) => ({ notification: notification.id })}
        empty={`No notification${status ? ` is ${label(status)}` : ''}.`}
      />

      <h2>Jobs whose retries ran out</h2>
      <Answered answer={dead} what="dead letters">
        {(data) => (
          <>
            <p id="dead-counts" class="counts">
              {Object.entries(data.counts)
                .map(([queue, count]) => `${label(queue)} ${count}`)
                .join(' · ')}
            </p>
            <DataTable
              id="dead-letters"
              label="Dead letters"
              columns={deadColumns}
              rows={data.items}
              rowKey={(job) => `${job.queue}:${job.id}`}
              empty="No job has run out of retries."
            />
          </>
        )}
      </Answered>
    </main>
  );
}
