import type { PaymentLinkEntity, PaymentLinkField } from '@app/persistence';
import type { FieldProblem } from '../../../errors/checkout-error';

/**
 * The payment link's pages: plain HTML, phone first, every value inserted as escaped text; one
 * stylesheet and one small script of their own (no inline script or style, so the
 * Content-Security-Policy allows nothing else). The form works without the script: the waiting
 * page then reloads itself until the payment settles.
 */

export const escapeHtml = (value: unknown): string =>
  String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

export const PAGE_ASSETS = '/pay/assets';

function layout(title: string, body: string, options: { script?: boolean; refresh?: number } = {}) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${PAGE_ASSETS}/page.css">
${options.script ? `<script src="${PAGE_ASSETS}/page.js" defer></script>` : ''}
${options.refresh ? `<noscript><meta http-equiv="refresh" content="${options.refresh}"></noscript>` : ''}
</head><body><main>
${body}
</main></body></html>`;
}

/** What the form was sent with, to show again beside its refusal. */
export interface PaymentForm {
  method?: string;
  amount?: string;
  email?: string;
  phone?: string;
  name?: string;
  /** The phone for an M-Pesa prompt, when the link does not collect one. */
  mpesa_phone?: string;
}

const FIELD_INPUTS: Record<PaymentLinkField, (form: PaymentForm) => string> = {
  email: (form) =>
    `<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="email" maxlength="254" value="${escapeHtml(form.email)}">`,
  phone: (form) =>
    `<label for="phone">Phone number</label><input id="phone" name="phone" type="tel" inputmode="tel" autocomplete="tel" maxlength="32" placeholder="0712 345 678" value="${escapeHtml(form.phone)}">`,
  name: (form) =>
    `<label for="name">Your name</label><input id="name" name="name" autocomplete="name" maxlength="200" value="${escapeHtml(form.name)}">`,
};

function problemsBlock(problems: readonly FieldProblem[]): string {
  if (problems.length === 0) return '';
  const items = problems
    .map((p) => `<li><strong>${escapeHtml(p.field)}</strong>: ${escapeHtml(p.reason)}</li>`)
    .join('');
  return `<div class="refused" id="problems" role="alert"><p>Please check:</p><ul>${items}</ul></div>`;
}

/** The link's page: what is paid for, the amount (or a field for it), the fields, two ways to pay. */
export function linkPage(
  link: PaymentLinkEntity,
  form: PaymentForm = {},
  problems: readonly FieldProblem[] = [],
): string {
  const open = link.amount === null;
  const bounds = [
    link.minAmount ? `at least ${link.currency} ${link.minAmount}` : '',
    link.maxAmount ? `at most ${link.currency} ${link.maxAmount}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const amount = open
    ? `<label for="amount">Amount (${escapeHtml(link.currency)})${bounds ? ` <span class="hint">${escapeHtml(bounds)}</span>` : ''}</label>
<input id="amount" name="amount" inputmode="decimal" autocomplete="transaction-amount" required maxlength="20" value="${escapeHtml(form.amount)}">`
    : `<p class="amount" id="amount">${escapeHtml(link.currency)} ${escapeHtml(link.amount)}</p>`;
  const fields = link.collect.map((field) => FIELD_INPUTS[field](form)).join('\n');
  const mpesaPhone = link.collect.includes('phone')
    ? ''
    : `<label for="mpesa-phone">M-Pesa phone number</label><input id="mpesa-phone" name="mpesa_phone" type="tel" inputmode="tel" autocomplete="tel" maxlength="32" placeholder="0712 345 678" value="${escapeHtml(form.phone)}">`;
  return layout(
    link.description,
    `<h1 id="description">${escapeHtml(link.description)}</h1>
${problemsBlock(problems)}
<form method="post" action="/pay/${escapeHtml(link.id)}" id="pay">
${amount}
${fields}
<button id="pay-card" type="submit" name="method" value="hosted">Pay by card or mobile money</button>
<details id="mpesa"${form.method === 'mobile_money' ? ' open' : ''}><summary>Pay with M-Pesa</summary>
<p class="hint">A PIN prompt goes to your phone.</p>
${mpesaPhone}
<button id="pay-mpesa" type="submit" name="method" value="mobile_money">Pay with M-Pesa</button>
</details>
</form>
<p class="hint">Payments are taken by Pesapal.</p>`,
  );
}

/** A page that starts nothing: the link is closed, every use is taken, or there is no such link. */
export function noticePage(title: string, message: string): string {
  return layout(
    title,
    `<h1 id="notice-title">${escapeHtml(title)}</h1><p id="notice">${escapeHtml(message)}</p>`,
  );
}

export interface WaitingPayment {
  linkId: string;
  reference: string;
  status: string;
  kind: string;
  amount: string;
  currency: string;
  description: string;
  statusToken: string;
  afterPaymentUrl: string | null;
  afterPaymentMessage: string | null;
}

const FINAL_UNPAID = new Set(['failed', 'cancelled', 'expired']);

/**
 * The payment's page: the customer waits here for the outcome (the script follows the order's
 * live status; without it the page reloads), then sees the receipt or "try again".
 */
export function waitingPage(payment: WaitingPayment): string {
  const paid = payment.status === 'completed' || payment.status === 'reversed';
  const unpaid = FINAL_UNPAID.has(payment.status);
  const waiting =
    payment.kind === 'mobile_money'
      ? 'Check your phone and enter your M-Pesa PIN.'
      : 'Waiting for the payment…';
  const state = paid ? 'Paid. Thank you!' : unpaid ? 'The payment did not go through.' : waiting;
  const after = payment.afterPaymentUrl
    ? `<p><a id="continue" href="${escapeHtml(payment.afterPaymentUrl)}">Continue</a></p>`
    : `<p id="after-message">${escapeHtml(payment.afterPaymentMessage ?? 'You can close this page.')}</p>`;
  return layout(
    'Your payment',
    `<h1>${escapeHtml(payment.description)}</h1>
<div id="payment" data-reference="${escapeHtml(payment.reference)}" data-status-token="${escapeHtml(payment.statusToken)}" data-status="${escapeHtml(payment.status)}" data-after-url="${escapeHtml(payment.afterPaymentUrl ?? '')}"></div>
<p id="state" role="status" aria-live="polite">${escapeHtml(state)}</p>
<table class="receipt">
<tr><th scope="row">Payment</th><td id="reference">${escapeHtml(payment.reference)}</td></tr>
<tr><th scope="row">Amount</th><td id="paid-amount">${escapeHtml(payment.currency)} ${escapeHtml(payment.amount)}</td></tr>
</table>
<div id="receipt"${paid ? '' : ' hidden'}>${after}</div>
<p id="try-again"${unpaid ? '' : ' hidden'}><a href="/pay/${escapeHtml(payment.linkId)}">Try again</a></p>`,
    { script: !paid && !unpaid, refresh: paid || unpaid ? undefined : 4 },
  );
}

export const PAGE_STYLES = `*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1a1a1a;background:#f6f7f9;line-height:1.5}
main{max-width:30rem;margin:0 auto;padding:1rem;background:#fff;min-height:100vh}
h1{font-size:1.35rem;margin:.5rem 0 1rem}
label{display:block;margin:.75rem 0 .25rem;font-weight:600}
input{font-size:1rem;padding:.6rem;width:100%;border:1px solid #767676;border-radius:.35rem}
button{font-size:1rem;padding:.75rem 1rem;margin-top:1rem;width:100%;border:0;border-radius:.35rem;background:#0b5cad;color:#fff;cursor:pointer}
button:focus,input:focus,a:focus,summary:focus{outline:3px solid #f5a623;outline-offset:2px}
details{margin-top:1.25rem;border-top:1px solid #ddd;padding-top:.75rem}
summary{cursor:pointer;font-weight:600}
#pay-mpesa{background:#1e7b34}
.amount{font-size:1.6rem;font-weight:700;margin:.25rem 0}
.hint{color:#4a4a4a;font-weight:400;font-size:.9rem}
.refused{color:#8a0000;border:1px solid #8a0000;padding:.5rem .75rem;border-radius:.35rem}
.receipt{border-collapse:collapse;width:100%;margin:1rem 0}
.receipt th,.receipt td{text-align:left;padding:.4rem;border-bottom:1px solid #ddd}
a{color:#0b5cad}`;

/** Follows the payment live (the order's status stream, with its read-only token). */
export const PAGE_SCRIPT = `(function () {
  var holder = document.getElementById('payment');
  var state = document.getElementById('state');
  if (!holder || !state || typeof EventSource === 'undefined') return;
  var reference = holder.getAttribute('data-reference');
  var token = holder.getAttribute('data-status-token');
  var afterUrl = holder.getAttribute('data-after-url');
  var source = new EventSource('/v1/orders/' + encodeURIComponent(reference) +
    '/stream?status_token=' + encodeURIComponent(token));
  source.addEventListener('status', function (event) {
    var status = JSON.parse(event.data).status;
    holder.setAttribute('data-status', status);
    if (status === 'completed') {
      source.close();
      state.textContent = 'Paid. Thank you!';
      document.getElementById('receipt').hidden = false;
      if (afterUrl) setTimeout(function () { window.location.assign(afterUrl); }, 1500);
    } else if (status === 'failed' || status === 'cancelled' || status === 'expired') {
      source.close();
      state.textContent = 'The payment did not go through.';
      document.getElementById('try-again').hidden = false;
    }
  });
})();
`;
