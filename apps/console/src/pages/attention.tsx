import { useState } from 'preact/hooks';
import { adminApi, NotificationStatus } from '../admin-api';
import { Loading, Problem, problemOf, useAnswer, useCursorList } from '../answer';
import { ago, label, money } from '../format';
import { Needs, useCan } from '../operator';

const NOTIFICATION_STATUSES: NotificationStatus[] = [
  'received',
  'queued',
  'applied',
  'unmatched',
  'ignored',
  'failed',
];

/**
 * What needs an operator: orders stuck (pending too long, flagged, unknown), the gateway's
 * notifications (replay one), and jobs whose retries ran out (replay one).
 */
export function AttentionPage({ onRefused }: { onRefused: () => void }) {
  const [minutes, setMinutes] = useState(30);
  const [typedMinutes, setTypedMinutes] = useState('30');
  const [status, setStatus] = useState<NotificationStatus | ''>('failed');
  const [version, setVersion] = useState(0);
  const [said, setSaid] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const stuck = useCursorList((cursor) => adminApi.stuck(minutes, cursor), [minutes], onRefused);
  const notifications = useCursorList(
    (cursor) => adminApi.notifications(status || undefined, cursor),
    [status, version],
    onRefused,
  );
  const dead = useAnswer(() => adminApi.deadLetters(), [version], onRefused);
  // Verifying again and retrying change things: operations:write.
  const operate = useCan()('operations:write');

  function act(work: () => Promise<string>) {
    setSaid(null);
    setProblem(null);
    work().then(
      (done) => {
        setSaid(done);
        setVersion((v) => v + 1);
      },
      (error: unknown) => setProblem(problemOf(error)),
    );
  }

  return (
    <main id="main">
      <h1>Needs attention</h1>
      {said && (
        <p id="said" class="said" role="status">
          {said}
        </p>
      )}
      {problem && (
        <p id="attention-problem" class="problem" role="alert">
          {problem}
        </p>
      )}
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
        <label for="stuck-minutes">Pending for more than (minutes)</label>
        <input
          id="stuck-minutes"
          type="number"
          min={1}
          max={10080}
          value={typedMinutes}
          onInput={(event) => setTypedMinutes((event.target as HTMLInputElement).value)}
        />
        <button type="submit">Show</button>
      </form>
      {stuck.first.state === 'loading' && <Loading what="stuck orders" />}
      {stuck.first.state === 'failed' && <Problem text={stuck.first.problem} />}
      {stuck.first.state === 'ready' &&
        (stuck.items.length === 0 ? (
          <p id="no-stuck" class="empty">
            Nothing is stuck.
          </p>
        ) : (
          <div class="table" tabIndex={0} role="region" aria-label="Stuck orders">
            <table id="stuck">
              <thead>
                <tr>
                  <th scope="col">Order</th>
                  <th scope="col">Why</th>
                  <th scope="col">Amount</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {stuck.items.map(({ order, reasons }) => (
                  <tr key={order.id}>
                    <td>
                      <a href={`#/orders/${encodeURIComponent(order.reference)}`}>
                        {order.reference}
                      </a>
                    </td>
                    <td>{reasons.map(label).join(', ')}</td>
                    <td class="amount">{money(order.amount, order.currency)}</td>
                    <td title={order.created_at}>{ago(order.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
      {stuck.cursor && (
        <button type="button" onClick={() => void stuck.loadMore()}>
          More stuck orders
        </button>
      )}
      {stuck.moreProblem && <Problem text={stuck.moreProblem} />}

      <h2>Notifications from the gateway</h2>
      <form class="filters" onSubmit={(event) => event.preventDefault()}>
        <label for="notification-status">Status</label>
        <select
          id="notification-status"
          value={status}
          onChange={(event) =>
            setStatus((event.target as HTMLSelectElement).value as NotificationStatus)
          }
        >
          <option value="">any</option>
          {NOTIFICATION_STATUSES.map((value) => (
            <option value={value}>{label(value)}</option>
          ))}
        </select>
      </form>
      {notifications.first.state === 'loading' && <Loading what="notifications" />}
      {notifications.first.state === 'failed' && <Problem text={notifications.first.problem} />}
      {notifications.first.state === 'ready' &&
        (notifications.items.length === 0 ? (
          <p id="no-notifications" class="empty">
            No notification{status ? ` is ${label(status)}` : ''}.
          </p>
        ) : (
          <div class="table" tabIndex={0} role="region" aria-label="Notifications">
            <table id="notifications">
              <thead>
                <tr>
                  <th scope="col">Received</th>
                  <th scope="col">Status</th>
                  <th scope="col">Order</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Last error</th>
                  {operate && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {notifications.items.map((notification) => (
                  <tr key={notification.id} data-notification={notification.id}>
                    <td title={notification.received_at}>{ago(notification.received_at)}</td>
                    <td>
                      <span class={`badge ${notification.status}`}>
                        {label(notification.status)}
                      </span>
                    </td>
                    <td>
                      {notification.merchant_reference ?? notification.order_tracking_id ?? '—'}
                    </td>
                    <td>{notification.attempts}</td>
                    <td class="reason">{notification.last_error ?? '—'}</td>
                    {operate && (
                      <td>
                        <button
                          type="button"
                          class="replay secondary"
                          onClick={() =>
                            act(async () => {
                              await adminApi.replayNotification(notification.id);
                              return 'Notification sent through verification again';
                            })
                          }
                        >
                          Verify again
                        </button>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
      {notifications.cursor && (
        <button type="button" onClick={() => void notifications.loadMore()}>
          More notifications
        </button>
      )}
      {notifications.moreProblem && <Problem text={notifications.moreProblem} />}

      <h2>Jobs whose retries ran out</h2>
      {dead.state === 'loading' && <Loading what="dead letters" />}
      {dead.state === 'failed' && <Problem text={dead.problem} />}
      {dead.state === 'ready' && (
        <>
          <p id="dead-counts" class="counts">
            {Object.entries(dead.data.counts)
              .map(([queue, count]) => `${label(queue)} ${count}`)
              .join(' · ')}
          </p>
          {dead.data.items.length === 0 ? (
            <p id="no-dead-letters" class="empty">
              No job has run out of retries.
            </p>
          ) : (
            <div class="table" tabIndex={0} role="region" aria-label="Dead letters">
              <table id="dead-letters">
                <thead>
                  <tr>
                    <th scope="col">Failed</th>
                    <th scope="col">Queue</th>
                    <th scope="col">Job</th>
                    <th scope="col">Why</th>
                    {operate && <th scope="col">Actions</th>}
                  </tr>
                </thead>
                <tbody>
                  {dead.data.items.map((job) => (
                    <tr key={`${job.queue}:${job.id}`}>
                      <td title={job.failed_at ?? ''}>{ago(job.failed_at)}</td>
                      <td>{label(job.queue)}</td>
                      <td>{label(job.name)}</td>
                      <td class="reason">{job.failed_reason ?? '—'}</td>
                      {operate && (
                        <td>
                          <button
                            type="button"
                            class="replay secondary"
                            onClick={() =>
                              act(async () => {
                                await adminApi.replayDeadLetter(job.queue, job.id);
                                return `Job ${job.id} retried`;
                              })
                            }
                          >
                            Retry
                          </button>
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </main>
  );
}
