import { useState } from 'preact/hooks';
import { adminApi, UnmatchedPayment, UnmatchedPaymentStatus } from '../admin-api';
import { Problem, Said, useActs, useCursorList } from '../answer';
import { Badge, Column, CursorTable, OrderLink, since } from '../data-table';
import { Field, REASON_MAX_LENGTH, StatusFilter } from '../fields';
import { instant, money } from '../format';
import { Needs, useCan } from '../operator';
import { Review } from '../review';

const STATUSES: UnmatchedPaymentStatus[] = ['open', 'matched', 'refund_requested'];
/** As the server bounds what names the order (its reference, or a tracking id of it). */
const REFERENCE_MAX_LENGTH = 100;

type Step = 'match' | 'refund';

/** A payment as the operator reads it in a question: its amount, tracking id and receipt. */
const paymentText = (payment: UnmatchedPayment) =>
  `${money(payment.amount, payment.currency)} (tracking id ${payment.order_tracking_id}${payment.confirmation_code ? `, receipt ${payment.confirmation_code}` : ''})`;

const COLUMNS: Column<UnmatchedPayment>[] = [
  { head: 'Tracking id', class: 'url', cell: (payment) => payment.order_tracking_id },
  { head: 'Amount', class: 'amount', cell: (payment) => money(payment.amount, null) },
  { head: 'Currency', cell: (payment) => payment.currency },
  { head: 'Gateway reference', class: 'url', cell: (payment) => payment.merchant_reference ?? '—' },
  { head: 'Method', cell: (payment) => payment.payment_method ?? '—' },
  { head: 'Confirmation code', class: 'url', cell: (payment) => payment.confirmation_code ?? '—' },
  since('Received', (payment) => payment.created_at),
  {
    head: 'Status',
    cell: (payment) => (
      <>
        <Badge status={payment.status} />
        {payment.order_reference && (
          <div class="muted">
            order <OrderLink reference={payment.order_reference} />
          </div>
        )}
      </>
    ),
  },
];

/**
 * Payments the gateway took for no order of ours (made on its dashboard, or for an order lost in
 * a restore): each settled once, matched to an unpaid order it pays (operations:write) or
 * refunded in full with a reason (refunds:request; above the threshold a second person approves).
 */
export function UnmatchedPaymentsPage({ onRefused }: { onRefused: () => void }) {
  const [status, setStatus] = useState<UnmatchedPaymentStatus | ''>('open');
  const [version, setVersion] = useState(0);
  const [settling, setSettling] = useState<{ payment: UnmatchedPayment; step: Step } | null>(null);
  const [reference, setReference] = useState('');
  const [reason, setReason] = useState('');
  const list = useCursorList(
    (cursor) => adminApi.unmatchedPayments(status || undefined, cursor),
    [status, version],
    onRefused,
  );
  const { act, busy, said, problem } = useActs(() => setVersion((v) => v + 1));
  const can = useCan();
  const match = can('operations:write');
  const refund = can('refunds:request');

  function settle(payment: UnmatchedPayment, step: Step) {
    setReference('');
    setReason('');
    setSettling({ payment, step });
  }

  const columns: (Column<UnmatchedPayment> | false)[] = [
    ...COLUMNS,
    (match || refund) && {
      head: 'Actions',
      class: 'row-actions',
      cell: (payment) =>
        payment.status === 'open' && (
          <>
            {match && (
              <button
                type="button"
                class="match"
                disabled={busy}
                onClick={() => settle(payment, 'match')}
              >
                Match to an order…
              </button>
            )}
            {refund && (
              <button
                type="button"
                class="refund secondary"
                disabled={busy}
                onClick={() => settle(payment, 'refund')}
              >
                Refund…
              </button>
            )}
          </>
        ),
    },
  ];

  return (
    <main id="main">
      <h1>Payments without an order</h1>
      <p class="hint">
        Money the gateway took for an order this service does not hold. Settle each once: match it
        to the unpaid order it pays, or refund it to the payer.
      </p>
      {!match && <Needs what="Matching a payment to an order" permission="operations:write" />}
      {!refund && <Needs what="Refunding a payment" permission="refunds:request" />}
      {said && <Said text={said} />}
      {problem && <Problem id="unmatched-problem" text={problem} />}
      <StatusFilter
        id="unmatched-status"
        label="Status"
        any
        options={STATUSES}
        value={status}
        onValue={(chosen) => {
          setSettling(null);
          setStatus(chosen);
        }}
      />
      <CursorTable
        list={list}
        what="payments without an order"
        more="More payments"
        id="unmatched-payments"
        label="Payments without an order"
        columns={columns}
        rowData={(payment) => ({ payment: payment.id })}
        empty={`No payment without an order${status ? ` is ${status.replace(/_/g, ' ')}` : ''}.`}
        emptyId="no-unmatched-payments"
      />

      {settling?.step === 'match' && (
        <Review
          id="match-form"
          titleId="match-title"
          question={`Settle ${paymentText(settling.payment)} onto an order of ours? The order must be unpaid, of the same account, amount and currency: it becomes paid with this payment.`}
          submit="Match the payment"
          submitId="match-submit"
          busy={busy}
          onSubmit={() =>
            act(async () => {
              const matched = await adminApi.matchUnmatchedPayment(
                settling.payment.id,
                reference.trim(),
              );
              setSettling(null);
              return `Payment matched to order ${matched.order.reference}, now ${matched.order.status}`;
            })
          }
          onCancel={() => setSettling(null)}
        >
          <Field
            id="match-reference"
            label="The order's reference"
            required
            maxLength={REFERENCE_MAX_LENGTH}
            value={reference}
            onValue={setReference}
          />
        </Review>
      )}
      {settling?.step === 'refund' && (
        <Review
          id="unmatched-refund-form"
          titleId="unmatched-refund-title"
          question={`Refund ${paymentText(settling.payment)} in full to its payer? This sends money back and cannot be undone. You are its requester; above the approval threshold it waits for a second person.`}
          submit="Send the refund"
          submitId="unmatched-refund-submit"
          busy={busy}
          onSubmit={() =>
            act(async () => {
              const result = await adminApi.refundUnmatchedPayment(
                settling.payment.id,
                reason.trim(),
              );
              setSettling(null);
              return 'refund_approval' in result
                ? `Refund request waiting for a second person's approval (until ${instant(result.refund_approval.expires_at)})`
                : `Refund ${result.refund.status}${result.refund.gateway_message ? `: ${result.refund.gateway_message}` : ''} (order ${result.order.reference})`;
            })
          }
          onCancel={() => setSettling(null)}
        >
          <Field
            id="unmatched-refund-reason"
            label="Reason (sent to the gateway)"
            required
            maxLength={REASON_MAX_LENGTH}
            value={reason}
            onValue={setReason}
          />
        </Review>
      )}
    </main>
  );
}
