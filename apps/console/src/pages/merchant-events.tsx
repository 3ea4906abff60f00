import { useRef, useState } from 'preact/hooks';
import { adminApi, EventDeliveries } from '../admin-api';
import { Loading, Problem, problemOf, useCursorList } from '../answer';
import { ago, instant, label } from '../format';
import { useCan } from '../operator';

function Deliveries({ deliveries }: { deliveries: EventDeliveries }) {
  return (
    <div id="deliveries" class="table" tabIndex={0} role="region" aria-label="Delivery attempts">
      <table>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Endpoint</th>
            <th scope="col">Attempt</th>
            <th scope="col">Answer</th>
            <th scope="col">Took</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.data.length === 0 && (
            <tr>
              <td colSpan={5}>No attempt yet.</td>
            </tr>
          )}
          {deliveries.data.map((attempt) => (
            <tr key={attempt.id}>
              <td>{instant(attempt.created_at)}</td>
              <td class="url">{attempt.url}</td>
              <td>{attempt.attempt}</td>
              <td>
                {attempt.response_status
                  ? `HTTP ${attempt.response_status}`
                  : (attempt.error ?? '—')}
              </td>
              <td>{attempt.duration_ms === null ? '—' : `${attempt.duration_ms} ms`}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

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
  return (
    <>
      {events.first.state === 'loading' && <Loading what="the events" />}
      {events.first.state === 'failed' && <Problem text={events.first.problem} />}
      {events.first.state === 'ready' &&
        (events.items.length === 0 ? (
          <p class="empty">No merchant event yet.</p>
        ) : (
          <div class="table" tabIndex={0} role="region" aria-label="Events">
            <table id="events">
              <thead>
                <tr>
                  <th scope="col">Type</th>
                  <th scope="col">Order</th>
                  <th scope="col">Delivery</th>
                  <th scope="col">Created</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {events.items.map((event) => (
                  <tr key={event.id} data-event={event.id}>
                    <td>{event.type}</td>
                    <td>{event.order_reference ?? '—'}</td>
                    <td>
                      <span class={`badge ${event.delivery_state}`}>
                        {label(event.delivery_state)}
                      </span>
                    </td>
                    <td title={event.created_at}>{ago(event.created_at)}</td>
                    <td class="row-actions">
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
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
      {events.cursor && (
        <button type="button" id="more-events" onClick={() => void events.loadMore()}>
          More events
        </button>
      )}
      {opened && <Deliveries deliveries={opened.deliveries} />}
      {events.moreProblem && <Problem text={events.moreProblem} />}
      {problem && <Problem text={problem} />}
    </>
  );
}
