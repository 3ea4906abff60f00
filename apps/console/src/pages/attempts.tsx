import { useState } from 'preact/hooks';
import { adminApi, OrderDetail, Schemas } from '../admin-api';
import { instant, label, money } from '../format';
import { Problem, problemOf } from '../answer';
import { Badge, Column, DataTable } from '../data-table';
import { Review } from '../review';
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

  const columns: Column<Attempt>[] = [
    {
      head: '#',
      cell: (attempt) => `${attempt.number}${attempt.current ? ' (current)' : ''}`,
    },
    { head: 'Kind', cell: (attempt) => label(attempt.kind) },
    { head: 'Status', cell: (attempt) => <Badge status={attempt.status} /> },
    { head: 'Gateway id', cell: (attempt) => attempt.gateway_reference },
    { head: 'Tracking id', cell: (attempt) => attempt.order_tracking_id ?? '—' },
    { head: 'Receipt', cell: (attempt) => attempt.confirmation_code ?? '—' },
    { head: 'Started', cell: (attempt) => instant(attempt.started_at) },
    {
      head: 'Refund',
      cell: (attempt) => (
        <>
          {attempt.refund_status && <Badge status={attempt.refund_status} />}
          {request && isSecondPayment(detail, attempt) && (
            <button type="button" class="second-payment" onClick={() => setReviewing(attempt)}>
              Refund second payment…
            </button>
          )}
        </>
      ),
    },
  ];

  return (
    <>
      <DataTable
        id="attempts"
        label="Payment attempts"
        columns={columns}
        rows={detail.attempts}
        rowKey={(attempt) => attempt.number}
        rowData={(attempt) => ({ attempt: attempt.number })}
        empty="No payment attempt."
      />
      {reviewing && (
        <Review
          id="second-payment-review"
          titleId="second-payment-summary"
          question={`Refund ${money(order.amount, order.currency)} (in full) paid by attempt ${reviewing.number} (receipt ${reviewing.confirmation_code}), the second payment of order ${order.reference}? The gateway takes one refund per payment; this cannot be undone. You are its requester; above the approval threshold it waits for a second person.`}
          submit="Send the refund"
          submitId="second-payment-submit"
          busy={sending}
          onSubmit={() => void refund(reviewing)}
          onCancel={() => setReviewing(null)}
        />
      )}
      {problem && <Problem text={problem} />}
    </>
  );
}
