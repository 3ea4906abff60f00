import { useState } from 'preact/hooks';
import { adminApi, OrderDetail } from '../admin-api';
import { instant, money } from '../format';
import { Problem, problemOf } from '../answer';
import { Field, REASON_MAX_LENGTH } from '../fields';
import { Needs, useCan } from '../operator';

type Step = 'idle' | 'cancel' | 'refund' | 'refund-review' | 'busy';

/**
 * What the operator may do to the order: sync, cancel an unpaid one (operations:write), refund a
 * paid one (refunds:request; above the approval threshold the refund waits for a second person).
 */
export function OrderActions({
  detail,
  onChanged,
}: {
  detail: OrderDetail;
  onChanged: (said: string) => void;
}) {
  const order = detail.order;
  const [step, setStep] = useState<Step>('idle');
  const [problem, setProblem] = useState<string | null>(null);
  const [note, setNote] = useState('');
  const [amount, setAmount] = useState(order.paid_amount ?? order.amount);
  const [reason, setReason] = useState('');
  const [partialConfirmed, setPartialConfirmed] = useState(false);
  const refundable =
    order.status === 'completed' && (!order.refund || order.refund.status === 'rejected');
  const cancellable = order.status === 'pending' || order.status === 'failed';
  const full = order.paid_amount ?? order.amount;
  const partial = amount.trim() !== '' && amount.trim() !== full;
  const can = useCan();
  const operate = can('operations:write');
  const request = can('refunds:request');

  async function run(work: () => Promise<string>) {
    setProblem(null);
    setStep('busy');
    try {
      onChanged(await work());
      setStep('idle');
    } catch (error) {
      setProblem(problemOf(error));
      setStep('idle');
    }
  }

  return (
    <section aria-labelledby="actions-title" class="actions">
      <h2 id="actions-title">Actions</h2>
      <div class="buttons">
        {operate && (
          <button
            type="button"
            id="sync"
            disabled={step === 'busy'}
            onClick={() =>
              run(async () => {
                const synced = await adminApi.sync(order.reference);
                return `Synced with the gateway: ${synced.result.replace(/_/g, ' ')}${synced.reason ? ` (${synced.reason})` : ''}`;
              })
            }
          >
            Sync with the gateway
          </button>
        )}
        {operate && cancellable && step === 'idle' && (
          <button type="button" id="cancel" onClick={() => setStep('cancel')}>
            Cancel the order…
          </button>
        )}
        {request && refundable && step === 'idle' && (
          <button type="button" id="refund" onClick={() => setStep('refund')}>
            Refund…
          </button>
        )}
      </div>
      {!operate && <Needs what="Syncing or cancelling an order" permission="operations:write" />}
      {!request && refundable && <Needs what="Refunding" permission="refunds:request" />}

      {step === 'cancel' && (
        <form
          id="cancel-form"
          onSubmit={(event) => {
            event.preventDefault();
            void run(async () => {
              await adminApi.cancel(order.reference, note.trim());
              return 'Order cancelled at the gateway';
            });
          }}
        >
          <p>
            Cancel order <strong>{order.reference}</strong> at the gateway? A cancelled order cannot
            be paid.
          </p>
          <Field
            id="cancel-note"
            label="Note for the timeline (optional)"
            maxLength={500}
            value={note}
            onValue={setNote}
          />
          <button type="submit">Cancel the order</button>
          <button type="button" class="secondary" onClick={() => setStep('idle')}>
            Keep it
          </button>
        </form>
      )}

      {step === 'refund' && (
        <form
          id="refund-form"
          onSubmit={(event) => {
            event.preventDefault();
            setStep('refund-review');
          }}
        >
          <Field
            id="refund-amount"
            label={`Amount (${order.paid_currency ?? order.currency})`}
            inputMode="decimal"
            required
            maxLength={16}
            value={amount}
            onValue={setAmount}
          />
          <Field
            id="refund-reason"
            label="Reason"
            required
            maxLength={REASON_MAX_LENGTH}
            value={reason}
            onValue={setReason}
          />
          {partial && (
            <label class="check">
              <input
                id="refund-partial"
                type="checkbox"
                checked={partialConfirmed}
                onChange={(event) =>
                  setPartialConfirmed((event.target as HTMLInputElement).checked)
                }
              />
              A partial refund (cards only): the rest of the payment stays with the shop
            </label>
          )}
          <button type="submit">Review the refund</button>
          <button type="button" class="secondary" onClick={() => setStep('idle')}>
            Not now
          </button>
        </form>
      )}

      {step === 'refund-review' && (
        <div id="refund-review" role="group" aria-labelledby="refund-review-title">
          <p id="refund-review-title">
            Refund <strong>{money(amount.trim(), order.paid_currency ?? order.currency)}</strong> of
            order <strong>{order.reference}</strong> to the customer, because “{reason.trim()}”?
            This sends money back and cannot be undone. You are its requester; a refund above the
            approval threshold waits for a second person's approval.
          </p>
          <button
            type="button"
            id="refund-submit"
            onClick={() =>
              run(async () => {
                const result = await adminApi.refund(order.reference, {
                  amount: amount.trim(),
                  reason: reason.trim(),
                  confirm_partial: partial && partialConfirmed,
                });
                if ('refund_approval' in result) {
                  return `Refund request waiting for a second person's approval (until ${instant(result.refund_approval.expires_at)})`;
                }
                return `Refund ${result.refund.status}${result.refund.gateway_message ? `: ${result.refund.gateway_message}` : ''}`;
              })
            }
          >
            Send the refund
          </button>
          <button type="button" class="secondary" onClick={() => setStep('refund')}>
            Change it
          </button>
        </div>
      )}
      {step === 'busy' && (
        <p class="loading" role="status">
          Working…
        </p>
      )}
      {problem && <Problem id="action-problem" text={problem} />}
    </section>
  );
}
