import { useState } from 'preact/hooks';
import { adminApi, OrderDetail, Schemas } from '../admin-api';
import { instant, label, money } from '../format';
import { problemOf } from '../answer';
import { useCan } from '../operator';

type Attempt = Schemas['AdminOrderAttempt'];

/**
 * A payment of an earlier attempt on an order another attempt already paid: the customer paid
 * twice, and this one is refunded in full, once.
 */
function isSecondPayment(detail: OrderDetail, attempt: Attempt): boolean {
  const order = detail.order;
  return (
    !attempt.current &&
    attempt.status === 'completed' &&
    order.status === 'completed' &&
    attempt.confirmation_code !== null &&
    attempt.confirmation_code !== order.confirmation_code &&
    (attempt.refund_status === null || attempt.refund_status === 'rejected')
  );
}

/** The order's payment attempts; a double payment's second payment is refunded from here. */
export function Attempts({
  detail,
  onChanged,
}: {
  detail: OrderDetail;
  onChanged: (said: string) => void;
}) {
  const [reviewing, setReviewing] = useState<Attempt | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const order = detail.order;
  // The refund is asked for as the signed-in operator, who needs refunds:request.
  const request = useCan()('refunds:request');

  async function refund(attempt: Attempt) {
    // One refund per click: the button is disabled while it is on its way.
    if (sending) return;
    setSending(true);
    setProblem(null);
    try {
      const result = await adminApi.refundSecondPayment(order.reference, attempt.number);
      setReviewing(null);
      onChanged(
        'refund_approval' in result
          ? `Second payment refund request waiting for a second person's approval (until ${instant(result.refund_approval.expires_at)})`
          : `Second payment refund ${result.refund.status}`,
      );
    } catch (error) {
      setProblem(problemOf(error));
    } finally {
      setSending(false);
    }
  }

  return (
    <>
      <div class="table" tabIndex={0} role="region" aria-label="Payment attempts">
        <table id="attempts">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Kind</th>
              <th scope="col">Status</th>
              <th scope="col">Gateway id</th>
              <th scope="col">Tracking id</th>
              <th scope="col">Receipt</th>
              <th scope="col">Started</th>
              <th scope="col">Refund</th>
            </tr>
          </thead>
          <tbody>
            {detail.attempts.map((attempt) => (
              <tr key={attempt.number} data-attempt={attempt.number}>
                <td>
                  {attempt.number}
                  {attempt.current ? ' (current)' : ''}
                </td>
                <td>{label(attempt.kind)}</td>
                <td>
                  <span class={`badge ${attempt.status}`}>{label(attempt.status)}</span>
                </td>
                <td>{attempt.gateway_reference}</td>
                <td>{attempt.order_tracking_id ?? '—'}</td>
                <td>{attempt.confirmation_code ?? '—'}</td>
                <td>{instant(attempt.started_at)}</td>
                <td>
                  {attempt.refund_status && (
                    <span class={`badge ${attempt.refund_status}`}>
                      {label(attempt.refund_status)}
                    </span>
                  )}
                  {request && isSecondPayment(detail, attempt) && (
                    <button
                      type="button"
                      class="second-payment"
                      onClick={() => setReviewing(attempt)}
                    >
                      Refund second payment…
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {reviewing && (
        <form
          id="second-payment-review"
          onSubmit={(event) => {
            event.preventDefault();
            void refund(reviewing);
          }}
        >
          <p id="second-payment-summary">
            Refund {money(order.amount, order.currency)} (in full) paid by attempt{' '}
            {reviewing.number} (receipt {reviewing.confirmation_code}), the second payment of order{' '}
            {order.reference}? The gateway takes one refund per payment; this cannot be undone. You
            are its requester; above the approval threshold it waits for a second person.
          </p>
          <button type="submit" id="second-payment-submit" disabled={sending}>
            Send the refund
          </button>
          <button type="button" class="secondary" onClick={() => setReviewing(null)}>
            Not now
          </button>
        </form>
      )}
      {problem && (
        <p class="problem" role="alert">
          {problem}
        </p>
      )}
    </>
  );
}
