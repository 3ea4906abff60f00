import { createHash } from 'node:crypto';
import type { SandboxOrder } from '../orders/sandbox-order';

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** The pages' only style, allowed by its hash in the Content-Security-Policy (no inline script). */
export const HOSTED_PAGE_STYLE = `
body{font-family:system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem;color:#222}
.badge{display:inline-block;background:#fde68a;padding:.1rem .5rem;border-radius:.3rem;font-size:.8rem}
dl{display:grid;grid-template-columns:auto 1fr;gap:.3rem 1rem}dt{color:#666}
form button{display:block;width:100%;margin:.4rem 0;padding:.7rem;font-size:1rem;cursor:pointer}
`;

export const HOSTED_PAGE_STYLE_SOURCE = `'sha256-${createHash('sha256').update(HOSTED_PAGE_STYLE).digest('base64')}'`;

const layout = (title: string, body: string): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${HOSTED_PAGE_STYLE}</style>
</head>
<body>
<p class="badge">SANDBOX: no real money moves</p>
${body}
</body>
</html>
`;

/** The checkout page a customer sees at redirect_url. */
export function checkoutPage(order: SandboxOrder, payUrl: string): string {
  const payable = order.state === 'pending' || order.state === 'failed';
  const action = (value: string, label: string): string =>
    `<button type="submit" name="action" value="${value}" id="${value}">${escapeHtml(label)}</button>`;
  const subscription = order.accountNumber
    ? `<dt>Subscription</dt><dd>${escapeHtml(order.accountNumber)}${order.subscription ? ` (${escapeHtml(order.subscription.frequency)})` : ''}</dd>`
    : '';
  const buttons = payable
    ? `<form method="post" action="${escapeHtml(payUrl)}">
<input type="hidden" name="OrderTrackingId" value="${escapeHtml(order.orderTrackingId)}">
${order.state === 'failed' ? '<p id="retry">The last attempt failed; you may try again.</p>' : ''}
${action('card', 'Pay by card')}
${action('mobile_money', 'Pay by mobile money')}
${action('fail', 'Simulate a failed payment')}
${action('cancel', 'Cancel and return to the shop')}
</form>`
    : `<p id="closed">This order is ${escapeHtml(order.state)} and cannot be paid.</p>`;
  return layout(
    'Pay your order',
    `<h1>Pay your order</h1>
<dl>
<dt>Merchant reference</dt><dd id="reference">${escapeHtml(order.merchantReference)}</dd>
<dt>Description</dt><dd id="description">${escapeHtml(order.description)}</dd>
<dt>Amount</dt><dd id="amount">${escapeHtml(order.currency)} ${escapeHtml(order.amount)}</dd>
${subscription}
</dl>
${buttons}`,
  );
}

export function messagePage(title: string, text: string): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>`);
}
