/** The example shop's pages: plain HTML, every value inserted as escaped text, no inline script. */

export const escapeHtml = (value: unknown): string =>
  String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

export const PRODUCT = {
  name: 'Two bags of Kenyan coffee',
  amount: '1500.00',
  currency: 'KES',
} as const;

const STYLE = `body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
form{margin:1rem 0;padding:1rem;border:1px solid #ccc;border-radius:.5rem}
label{display:block;margin:.5rem 0}input{font-size:1rem;padding:.4rem;width:100%;box-sizing:border-box}
button{font-size:1rem;padding:.6rem 1rem;margin-top:.5rem;cursor:pointer}
.refused{color:#a00;border:1px solid #a00;padding:.5rem;border-radius:.3rem}
.paid{color:#060}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3rem .5rem;text-align:left}`;

export function layout(title: string, body: string, script?: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Example shop</title>
<link rel="stylesheet" href="/static/shop.css">
${script ? `<script src="${escapeHtml(script)}" defer></script>` : ''}
</head><body>
<p><a href="/">Example shop</a> · <a href="/webhooks">Webhooks received</a></p>
${body}
</body></html>`;
}

export const styleSheet = () => STYLE;

export interface Refusal {
  code: string;
  message: string;
}

function refusalBlock(refusal: Refusal | undefined): string {
  if (!refusal) return '';
  return `<p class="refused" id="refusal" role="alert"><strong id="refusal-code">${escapeHtml(refusal.code)}</strong>: <span id="refusal-message">${escapeHtml(refusal.message)}</span></p>`;
}

/** The product with its two ways to pay. */
export function productPage(reference: string, refusal?: Refusal, phone = ''): string {
  const order = `<input type="hidden" name="reference" value="${escapeHtml(reference)}">`;
  return layout(
    PRODUCT.name,
    `<h1>${escapeHtml(PRODUCT.name)}</h1>
<p id="price">${escapeHtml(PRODUCT.currency)} ${escapeHtml(PRODUCT.amount)}</p>
${refusalBlock(refusal)}
<form method="post" action="/checkout">
<input type="hidden" name="method" value="hosted">${order}
<label>Email <input name="email" type="email" value="amina@example.com" required></label>
<button id="pay-card" type="submit">Pay by card or mobile money on Pesapal's page</button>
</form>
<form method="post" action="/checkout">
<input type="hidden" name="method" value="mobile_money">${order}
<label>Email <input name="email" type="email" value="amina@example.com" required></label>
<label>M-Pesa phone number <input id="phone" name="phone" inputmode="tel" placeholder="0712 345 678" value="${escapeHtml(phone)}"></label>
<button id="pay-mpesa" type="submit">Pay with M-Pesa (a PIN prompt on your phone)</button>
</form>`,
  );
}

/** Follows the order live in the browser (waiting-page.js), then offers the receipt or a retry. */
export function waitingPage(input: {
  reference: string;
  statusToken: string;
  apiUrl: string;
  waitMs: number;
  kind: string;
}): string {
  return layout(
    'Waiting for your payment',
    `<h1>Your order ${escapeHtml(input.reference)}</h1>
<div id="order" data-reference="${escapeHtml(input.reference)}" data-status-token="${escapeHtml(input.statusToken)}" data-api-url="${escapeHtml(input.apiUrl)}" data-wait-ms="${escapeHtml(input.waitMs)}"></div>
<p id="state" aria-live="polite">${input.kind === 'mobile_money' ? 'Check your phone and enter your M-Pesa PIN.' : 'Waiting for the payment…'}</p>
<p id="receipt-link" hidden><a href="/orders/${encodeURIComponent(input.reference)}/receipt">See your receipt</a></p>
<form id="try-again" method="post" action="/orders/${encodeURIComponent(input.reference)}/attempts" hidden>
<p>The payment did not go through. Try again:</p>
<label><input type="radio" name="method" value="hosted" checked> On Pesapal's page</label>
<label><input type="radio" name="method" value="mobile_money"> M-Pesa prompt to <input name="phone" inputmode="tel" placeholder="0712 345 678"></label>
<button id="retry" type="submit">Try again</button>
</form>`,
    '/static/waiting-page.js',
  );
}

export function receiptPage(order: {
  reference: string;
  status: string;
  amount: string;
  currency: string;
  confirmation_code: string | null;
  payment_method: string | null;
  paid_at: string | null;
  attempt: number;
}): string {
  const row = (label: string, value: unknown, id: string) =>
    `<tr><th>${escapeHtml(label)}</th><td id="${id}">${escapeHtml(value ?? '—')}</td></tr>`;
  return layout(
    'Receipt',
    `<h1>Receipt</h1>
<p class="${order.status === 'completed' ? 'paid' : ''}" id="receipt-status">${order.status === 'completed' ? 'Paid. Thank you!' : `This order is ${escapeHtml(order.status)}.`}</p>
<table>
${row('Order', order.reference, 'receipt-reference')}
${row('Amount', `${order.currency} ${order.amount}`, 'receipt-amount')}
${row('Paid with', order.payment_method, 'receipt-method')}
${row('Confirmation code', order.confirmation_code, 'receipt-code')}
${row('Paid at (UTC)', order.paid_at, 'receipt-paid-at')}
${row('Attempt', order.attempt, 'receipt-attempt')}
</table>`,
  );
}

export interface ReceivedWebhookRow {
  at: string;
  id: string;
  verdict: string;
  type: string;
  reference: string;
}

export function webhooksPage(rows: readonly ReceivedWebhookRow[]): string {
  const body = rows
    .map(
      (r) =>
        `<tr class="webhook"><td>${escapeHtml(r.at)}</td><td>${escapeHtml(r.id)}</td><td class="verdict">${escapeHtml(r.verdict)}</td><td class="type">${escapeHtml(r.type)}</td><td>${escapeHtml(r.reference)}</td></tr>`,
    )
    .join('\n');
  return layout(
    'Webhooks',
    `<h1>Webhooks received</h1>
<p>Each merchant webhook the payment service sent, verified with the endpoint's secret; refused ones say why.</p>
<table id="webhooks"><thead><tr><th>Received</th><th>Id</th><th>Verdict</th><th>Event</th><th>Order</th></tr></thead>
<tbody>${body || '<tr><td colspan="5" id="none">None yet.</td></tr>'}</tbody></table>`,
  );
}
