import { useRef, useState } from 'preact/hooks';
import { adminApi, EventDeliveries, Schemas } from '../admin-api';
import { Problem, problemOf, useCursorList } from '../answer';
import { Badge, Column, CursorTable, DataTable, since } from '../data-table';
import { instant } from '../format';
import { useCan } from '../operator';

type Delivery = Schemas['WebhookDeliveryResponse'];
type MerchantEvent = Schemas['MerchantEventResponse'];

const DELIVERY_COLUMNS: Column<Delivery>[] = [
  { head: 'When', cell: (attempt) => instant(attempt.created_at) },
  { head: 'Endpoint', class: 'url', cell: (attempt) => attempt.url },
  { head: 'Attempt', cell: (attempt) => attempt.attempt },
  {
    head: 'Answer',
    cell: (attempt) =>
      attempt.response_status ? `HTTP ${attempt.response_status}` : (attempt.error ?? '—'),
  },
  {
    head: 'Took',
    cell: (attempt) => (attempt.duration_ms === null ? '—' : `${attempt.duration_ms} ms`),
  },
];

const Deliveries = ({ deliveries }: { deliveries: EventDeliveries }) => (
  <DataTable
    id="deliveries"
    label="Delivery attempts"
    columns={DELIVERY_COLUMNS}
    rows={deliveries.data}
    empty="No attempt yet."
    emptyId="deliveries"
  />
);

/**
 * Merchant events (all of them, or one order's), newest first, each with its delivery attempts
 * and "send again" after asking. `act` runs the page's actions one at a time and says what they did.
 */
export function MerchantEvents({
  order,
  version,
  onRefused,
  act,
}: {
  order?: string;
  version: number;
  onRefused: () => void;
  act: (work: () => Promise<string>) => void;
}) {
  const events = useCursorList(
    (cursor) => adminApi.events(cursor, order),
    [order, version],
    onRefused,
  );
  const [opened, setOpened] = useState<{ id: string; deliveries: EventDeliveries } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  // Sending an event again is managing webhooks.
  const manage = useCan()('webhooks:manage');
  // The attempts of the event asked for last: an earlier, slower answer is dropped.
  const asked = useRef<string | null>(null);
  async function open(id: string) {
    setProblem(null);
    asked.current = id;
    try {
      const deliveries = await adminApi.deliveries(id);
      if (asked.current === id) setOpened({ id, deliveries });
    } catch (error) {
      if (asked.current === id) setProblem(problemOf(error));
    }
  }
  const columns: Column<MerchantEvent>[] = [
    { head: 'Type', cell: (event) => event.type },
    { head: 'Order', cell: (event) => event.order_reference ?? '—' },
    { head: 'Delivery', cell: (event) => <Badge status={event.delivery_state} /> },
    since('Created', (event) => event.created_at),
    {
      head: 'Actions',
      class: 'row-actions',
      cell: (event) => (
        <>
          <button
            type="button"
            class="deliveries secondary"
            onClick={() => void open(event.id)}
            aria-expanded={opened?.id === event.id}
          >
            Attempts
          </button>
          {manage && (
            <button
              type="button"
              class="redeliver secondary"
              onClick={() =>
                confirm(`Send ${event.type} again to its endpoints?`) &&
                act(async () => {
                  const sent = await adminApi.redeliver(event.id);
                  return `Handed again to ${sent.endpoints.length} endpoint(s)`;
                })
              }
            >
              Send again
            </button>
          )}
        </>
      ),
    },
  ];
  return (
    <>
      <CursorTable
        list={events}
        what="the events"
        more="More events"
        id="events"
        label="Events"
        columns={columns}
        rowData={(event) => ({ event: event.id })}
        empty="No merchant event yet."
      />
      {opened && <Deliveries deliveries={opened.deliveries} />}
      {problem && <Problem text={problem} />}
    </>
  );
}
