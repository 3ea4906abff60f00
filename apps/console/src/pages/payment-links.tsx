import { useEffect, useState } from 'preact/hooks';
import QRCode from 'qrcode';
import {
  adminApi,
  NewPaymentLink,
  PaymentLink,
  PaymentLinkDetail,
  PaymentLinkStatus,
} from '../admin-api';
import { Problem, Said, useActs, useCursorList } from '../answer';
import { Badge, Column, CursorTable, DataTable, OrderLink, since } from '../data-table';
import { Field, StatusFilter } from '../fields';
import { money } from '../format';
import { Review } from '../review';

type LinkPayment = PaymentLinkDetail['payments'][number];

const STATUSES: PaymentLinkStatus[] = ['active', 'expired', 'completed', 'deactivated'];
/** As the server bounds them (payment_links.description; an amount typed as text). */
const DESCRIPTION_MAX_LENGTH = 100;
const AMOUNT_MAX_LENGTH = 16;

/** How many payments a link takes, and how many it has. */
const usesText = (link: PaymentLink) =>
  `${link.payments_completed} of ${link.max_payments ?? 'any number'}`;

const amountText = (link: PaymentLink) =>
  link.amount !== null
    ? money(link.amount, link.currency)
    : `open${link.min_amount ? ` from ${link.min_amount}` : ''}${link.max_amount ? ` up to ${link.max_amount}` : ''} ${link.currency}`;

const COLUMNS: Column<PaymentLink>[] = [
  { head: 'Description', class: 'reason', cell: (link) => link.description },
  { head: 'Amount', class: 'amount', cell: amountText },
  { head: 'Status', cell: (link) => <Badge status={link.status} /> },
  { head: 'Payments', cell: usesText },
  { head: 'Collected', class: 'amount', cell: (l) => money(l.amount_collected, l.currency) },
  since('Made', (link) => link.created_at),
];

/** The link's address as a QR code (an SVG image) for a customer's phone camera. */
function QrCode({ url }: { url: string }) {
  const [image, setImage] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    void QRCode.toString(url, { type: 'svg', margin: 1 }).then((svg) => {
      if (current) setImage(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`);
    });
    return () => {
      current = false;
    };
  }, [url]);
  return image ? (
    <img id="link-qr" class="qr" src={image} width={200} height={200} alt={`QR code of ${url}`} />
  ) : null;
}

/** One link: its address to copy or scan, and its latest payments. */
function LinkDetail({ detail, onClose }: { detail: PaymentLinkDetail; onClose: () => void }) {
  const link = detail.payment_link;
  const [copied, setCopied] = useState(false);
  return (
    <section id="link-detail" aria-labelledby="link-detail-title">
      <h2 id="link-detail-title">{link.description}</h2>
      <p>
        <a id="link-url" href={link.url} target="_blank" rel="noreferrer">
          {link.url}
        </a>{' '}
        <button
          type="button"
          id="copy-link"
          class="secondary"
          onClick={() => void navigator.clipboard?.writeText(link.url).then(() => setCopied(true))}
        >
          {copied ? 'Copied' : 'Copy the link'}
        </button>
      </p>
      <QrCode url={link.url} />
      <p>
        <Badge status={link.status} /> {amountText(link)}; payments {usesText(link)}, collected{' '}
        {money(link.amount_collected, link.currency)}; references {link.reference_prefix}-1, -2, …
      </p>
      <DataTable<LinkPayment>
        id="link-payments"
        label="The link's payments"
        caption="Latest payments"
        rows={detail.payments}
        rowKey={(payment) => payment.reference}
        empty="No payment yet."
        columns={[
          { head: 'Order', cell: (payment) => <OrderLink reference={payment.reference} /> },
          { head: 'Status', cell: (payment) => <Badge status={payment.status} /> },
          { head: 'Amount', class: 'amount', cell: (p) => money(p.amount, p.currency) },
          { head: 'Customer', cell: (payment) => payment.customer_email ?? '—' },
          since('Started', (payment) => payment.created_at),
        ]}
      />
      <button type="button" class="secondary" onClick={onClose}>
        Close
      </button>
    </section>
  );
}

/**
 * Payment links (payment_links:manage): a page customers pay on without a shop. Made here with a
 * fixed or open amount and a number of uses, copied or shown as a QR code, followed by their
 * payments, and deactivated for good.
 */
export function PaymentLinksPage({ onRefused }: { onRefused: () => void }) {
  const [status, setStatus] = useState<PaymentLinkStatus | ''>('active');
  const [version, setVersion] = useState(0);
  const [making, setMaking] = useState(false);
  const [description, setDescription] = useState('');
  const [amount, setAmount] = useState('');
  const [currency, setCurrency] = useState('KES');
  const [uses, setUses] = useState('');
  const [shown, setShown] = useState<PaymentLinkDetail | null>(null);
  const [deactivating, setDeactivating] = useState<PaymentLink | null>(null);
  const list = useCursorList(
    (cursor) => adminApi.paymentLinks(status || undefined, cursor),
    [status, version],
    onRefused,
  );
  const { act, busy, said, problem } = useActs(() => setVersion((v) => v + 1));

  const show = (link: PaymentLink) =>
    act(async () => {
      setShown(await adminApi.paymentLink(link.id));
      return null;
    });

  const columns: Column<PaymentLink>[] = [
    ...COLUMNS,
    {
      head: 'Actions',
      class: 'row-actions',
      cell: (link) => (
        <>
          <button type="button" class="show-link" disabled={busy} onClick={() => show(link)}>
            Show
          </button>
          {link.status === 'active' && (
            <button
              type="button"
              class="deactivate secondary"
              disabled={busy}
              onClick={() => setDeactivating(link)}
            >
              Deactivate…
            </button>
          )}
        </>
      ),
    },
  ];

  return (
    <main id="main">
      <h1>Payment links</h1>
      <p class="hint">
        A page anyone with its address can pay on, by card or M-Pesa: send it in a chat, an email or
        an invoice, or show its QR code. Each payment is an order.
      </p>
      {said && <Said text={said} />}
      {problem && <Problem id="links-problem" text={problem} />}
      {shown && <LinkDetail detail={shown} onClose={() => setShown(null)} />}
      {!making ? (
        <button type="button" id="new-link" onClick={() => setMaking(true)}>
          New payment link…
        </button>
      ) : (
        <Review
          id="link-form"
          titleId="link-form-title"
          question="A new payment link: leave the amount empty to let the customer type it, and the payments empty for any number."
          submit="Make the link"
          submitId="link-submit"
          busy={busy}
          onSubmit={() =>
            act(async () => {
              const body: NewPaymentLink = {
                description: description.trim(),
                currency: currency.trim().toUpperCase(),
                ...(amount.trim() ? { amount: amount.trim() } : {}),
                ...(uses.trim() ? { max_payments: Number(uses) } : {}),
              };
              const made = await adminApi.createPaymentLink(body);
              setMaking(false);
              setDescription('');
              setAmount('');
              setUses('');
              setShown({ payment_link: made.payment_link, payments: [] });
              return `Payment link made: ${made.payment_link.url}`;
            })
          }
          onCancel={() => setMaking(false)}
          cancel="Cancel"
        >
          <Field
            id="link-description"
            label="What is paid for"
            required
            maxLength={DESCRIPTION_MAX_LENGTH}
            value={description}
            onValue={setDescription}
          />
          <Field
            id="link-amount"
            label="Amount (empty: the customer types it)"
            inputMode="decimal"
            maxLength={AMOUNT_MAX_LENGTH}
            value={amount}
            onValue={setAmount}
          />
          <Field
            id="link-currency"
            label="Currency"
            required
            maxLength={3}
            value={currency}
            onValue={setCurrency}
          />
          <Field
            id="link-uses"
            label="Payments it takes (1: single use; empty: any number)"
            type="number"
            min={1}
            value={uses}
            onValue={setUses}
          />
        </Review>
      )}
      <StatusFilter
        id="links-status"
        label="Status"
        any
        options={STATUSES}
        value={status}
        onValue={(chosen) => setStatus(chosen)}
      />
      <CursorTable
        list={list}
        what="payment links"
        more="More links"
        id="payment-links"
        label="Payment links"
        columns={columns}
        rowData={(link) => ({ link: link.id })}
        empty={`No payment link${status ? ` is ${status}` : ''}.`}
        emptyId="no-payment-links"
      />
      {deactivating && (
        <Review
          id="deactivate-form"
          titleId="deactivate-title"
          question={`Deactivate "${deactivating.description}"? Its page stops taking payments for good; payments already made stay.`}
          submit="Deactivate the link"
          submitId="deactivate-submit"
          busy={busy}
          onSubmit={() =>
            act(async () => {
              await adminApi.deactivatePaymentLink(deactivating.id);
              setDeactivating(null);
              setShown(null);
              return `Payment link "${deactivating.description}" deactivated`;
            })
          }
          onCancel={() => setDeactivating(null)}
        />
      )}
    </main>
  );
}
