import { useState } from 'preact/hooks';
import { adminApi, OrderDetail } from '../admin-api';
import { Problem, Said, useActs, useAnswer } from '../answer';
import { Answered } from '../data-table';
import { instant, label, money } from '../format';
import { Attempts } from './attempts';
import { MerchantEvents } from './merchant-events';
import { OrderActions } from './order-actions';

function Field({ name, value }: { name: string; value: string | null | undefined }) {
  return (
    <>
      <dt>{name}</dt>
      <dd>{value ?? '—'}</dd>
    </>
  );
}

function Summary({ detail }: { detail: OrderDetail }) {
  const order = detail.order;
  return (
    <dl id="summary" class="summary">
      <Field name="Status" value={label(order.status)} />
      <Field name="Amount" value={money(order.amount, order.currency)} />
      <Field name="Paid" value={money(order.paid_amount, order.paid_currency)} />
      <Field name="Description" value={order.description} />
      <Field name="Kind" value={label(order.kind)} />
      <Field name="Tracking id" value={order.order_tracking_id} />
      <Field name="Receipt" value={order.confirmation_code} />
      <Field name="Method" value={order.payment_method} />
      <Field name="Customer" value={order.customer_email ?? order.customer_phone} />
      <Field name="Created" value={instant(order.created_at)} />
      <Field name="Paid at" value={instant(order.paid_at)} />
      {order.needs_review && <Field name="Needs review" value={order.review_reason} />}
      {order.refund && (
        <Field
          name="Refund"
          value={`${label(order.refund.status)} ${money(order.refund.amount, order.refund.currency)}`}
        />
      )}
    </dl>
  );
}

/** One order: what it is now, its payment attempts, its timeline and its merchant events. */
export function OrderPage({ reference, onRefused }: { reference: string; onRefused: () => void }) {
  // Each action reads the order again afterwards, and says what it did.
  const [version, setVersion] = useState(0);
  const answer = useAnswer(() => adminApi.order(reference), [reference, version], onRefused);
  // A merchant event sent again: one at a time (a double click sends once), then the order and
  // its events read again.
  const { act, said, setSaid, problem } = useActs(() => setVersion((v) => v + 1));
  const changed = (text: string) => {
    setSaid(text);
    setVersion((v) => v + 1);
  };
  return (
    <main id="main">
      <p>
        <a href="#/orders">← Orders</a>
      </p>
      <h1>
        Order <span id="reference">{reference}</span>
      </h1>
      <Answered answer={answer} what="the order">
        {(detail) => (
          <>
            <Summary detail={detail} />
            {said && <Said text={said} />}
            <OrderActions detail={detail} onChanged={changed} />
            <h2>Payment attempts</h2>
            <Attempts detail={detail} onChanged={changed} />
            <h2>Timeline</h2>
            <ol id="timeline" class="timeline">
              {detail.timeline.map((entry) => (
                <li>
                  <time dateTime={entry.at}>{instant(entry.at)}</time>{' '}
                  <strong>{label(entry.type)}</strong>
                  {entry.to_status && ` → ${label(entry.to_status)}`}{' '}
                  <span class="source">
                    ({entry.source}
                    {entry.actor ? `, ${entry.actor}` : ''})
                  </span>
                </li>
              ))}
            </ol>
            <h2>Merchant events</h2>
            {problem && <Problem text={problem} />}
            <MerchantEvents order={reference} version={version} onRefused={onRefused} act={act} />
          </>
        )}
      </Answered>
    </main>
  );
}
