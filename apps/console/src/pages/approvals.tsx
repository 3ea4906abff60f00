import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { adminApi, RefundApproval, RefundApprovalStatus } from '../admin-api';
import { Problem, Said, useActs, useCursorList } from '../answer';
import { Badge, Column, CursorTable, OrderLink, since } from '../data-table';
import { Field, REASON_MAX_LENGTH, StatusFilter } from '../fields';
import { instant, label, money } from '../format';
import { Needs, useCan } from '../operator';
import { Review } from '../review';

const APPROVAL_STATUSES: RefundApprovalStatus[] = ['pending', 'approved', 'declined', 'expired'];

/** What a refund request is, in a sentence: amount, order, attempt, who asked and why. */
function requestText(approval: RefundApproval): string {
  const what = `${money(approval.amount, approval.currency)}${approval.partial ? ' (partial)' : ''}`;
  const attempt =
    approval.attempt === null ? '' : `, attempt ${approval.attempt}'s payment (a double payment)`;
  return `the refund of ${what} of order ${approval.order_reference ?? '—'}${attempt}, asked for by ${approval.requested_by} because “${approval.reason}”`;
}

type Step = 'approve' | 'decline';

/** The columns of the requests of one status: a pending one's deadline and actions, else its decision. */
function columnsOf(
  pending: boolean,
  me: string,
  actions: false | ((approval: RefundApproval) => ComponentChildren),
): (Column<RefundApproval> | false)[] {
  return [
    {
      head: 'Order',
      cell: (approval) => (
        <>
          <OrderLink reference={approval.order_reference} />
          {approval.attempt !== null && (
            <div class="muted">attempt {approval.attempt} (double payment)</div>
          )}
        </>
      ),
    },
    {
      head: 'Amount',
      class: 'amount',
      cell: (approval) =>
        `${money(approval.amount, approval.currency)}${approval.partial ? ' (partial)' : ''}`,
    },
    { head: 'Reason', class: 'reason', cell: (approval) => approval.reason },
    {
      head: 'Asked by',
      cell: (approval) => `${approval.requested_by}${approval.requested_by === me ? ' (you)' : ''}`,
    },
    since('Asked', (approval) => approval.requested_at),
    pending
      ? { head: 'Decide by', cell: (approval) => instant(approval.expires_at) }
      : { head: 'Status', cell: (approval) => <Badge status={approval.status} /> },
    !pending && {
      head: 'Decision',
      class: 'reason',
      cell: (approval) =>
        approval.decided_by
          ? `${approval.decided_by}, ${instant(approval.decided_at)}${approval.decision_reason ? `: ${approval.decision_reason}` : ''}`
          : '—',
    },
    pending && actions && { head: 'Actions', class: 'row-actions', cell: actions },
  ];
}

/**
 * Refund requests above the approval threshold: approved (the refund is made and sent once) or
 * declined with a reason, by someone holding refunds:approve other than their requester.
 */
export function Approvals({ me, onRefused }: { me: string; onRefused: () => void }) {
  const approver = useCan()('refunds:approve');
  const [status, setStatus] = useState<RefundApprovalStatus>('pending');
  const [version, setVersion] = useState(0);
  const [deciding, setDeciding] = useState<{ approval: RefundApproval; step: Step } | null>(null);
  const [reason, setReason] = useState('');
  const list = useCursorList(
    (cursor) => adminApi.approvals(status, cursor),
    [status, version],
    onRefused,
  );
  const { act, busy, said, problem, setProblem } = useActs(() => setVersion((v) => v + 1));

  function decide(approval: RefundApproval, step: Step) {
    setReason('');
    setDeciding({ approval, step });
  }

  function approve(approval: RefundApproval) {
    act(async () => {
      const made = await adminApi.approve(approval.id);
      setDeciding(null);
      return `Refund ${made.refund.status ?? 'requested'} for order ${approval.order_reference ?? '—'}`;
    });
  }

  function decline(approval: RefundApproval) {
    if (reason.trim() === '') {
      setProblem('Say why it is declined: the requester reads it.');
      return;
    }
    act(async () => {
      await adminApi.decline(approval.id, reason.trim());
      setDeciding(null);
      return `Refund request for order ${approval.order_reference ?? '—'} declined`;
    });
  }

  const pendingShown = status === 'pending';
  const actions = (approval: RefundApproval) => (
    <>
      {approval.requested_by === me ? (
        <span class="muted">Yours: another person approves it</span>
      ) : (
        <button
          type="button"
          id={`approve-${approval.id}`}
          data-testid={`approve-${approval.id}`}
          class="approve"
          disabled={busy}
          onClick={() => decide(approval, 'approve')}
        >
          Approve…
        </button>
      )}
      <button
        type="button"
        id={`decline-${approval.id}`}
        data-testid={`decline-${approval.id}`}
        class="decline secondary"
        disabled={busy}
        onClick={() => decide(approval, 'decline')}
      >
        Decline…
      </button>
    </>
  );
  return (
    <>
      <StatusFilter
        id="approval-status"
        label="Status"
        options={APPROVAL_STATUSES}
        value={status}
        onValue={(chosen) => {
          setDeciding(null);
          setStatus(chosen || 'pending');
        }}
      />
      {!approver && pendingShown && (
        <Needs what="Approving or declining a refund request" permission="refunds:approve" />
      )}
      {said && <Said id="approvals-said" text={said} />}
      {problem && <Problem id="approvals-problem" text={problem} />}
      <CursorTable
        list={list}
        what="refund requests"
        moreId="more-approvals"
        id="approval-list"
        label="Refund requests"
        columns={columnsOf(pendingShown, me, approver && actions)}
        rowData={(approval) => ({ approval: approval.id })}
        empty={`No refund request is ${label(status)}.`}
        emptyId="no-approvals"
      />

      {deciding?.step === 'approve' && (
        <Review
          id="approval-review"
          titleId="approval-review-title"
          question={`Approve ${requestText(deciding.approval)}? The refund is sent to the gateway now; this cannot be undone.`}
          submit="Approve and send the refund"
          submitId="approve-submit"
          busy={busy}
          onSubmit={() => approve(deciding.approval)}
          onCancel={() => setDeciding(null)}
        />
      )}
      {deciding?.step === 'decline' && (
        <Review
          id="decline-form"
          titleId="decline-title"
          question={`Decline ${requestText(deciding.approval)}?`}
          submit="Decline the request"
          submitId="decline-submit"
          busy={busy}
          onSubmit={() => decline(deciding.approval)}
          onCancel={() => setDeciding(null)}
        >
          <Field
            id="decline-reason"
            label="Why (the requester reads it)"
            required
            maxLength={REASON_MAX_LENGTH}
            value={reason}
            onValue={setReason}
          />
        </Review>
      )}
    </>
  );
}
