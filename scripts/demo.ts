/**
 * `npm run demo`: a first payment end to end against the running service (`npm start`).
 * Hosted checkout → paid on the sandbox's hosted page → completed; mobile money push → completed;
 * refund of the first one (admin endpoint); each order's timeline printed.
 *
 * Settings (defaults match `npm start` run with the same environment): the api at HOST and PORT
 * as `npm start` reads them (127.0.0.1:3000), or API_URL to name another; SHOP_API_KEY
 * (shop_dev_key), ADMIN_API_KEY (admin_dev_key). Keys given as "name:secret" lists also work.
 */
function apiUrl(): string {
  if (process.env.API_URL) return process.env.API_URL.replace(/\/$/, '');
  const host = process.env.HOST?.trim() || '127.0.0.1';
  // An api listening on every interface is reached on loopback.
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const port = process.env.PORT?.trim() || '3000';
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}
const API_URL = apiUrl();
const keyOf = (entry: string | undefined, fallback: string) => {
  const first = (entry ?? fallback).split(',')[0].trim();
  return first.includes(':') ? first.slice(first.indexOf(':') + 1) : first;
};
const SHOP_KEY = keyOf(process.env.SHOP_API_KEY ?? process.env.SHOP_API_KEYS, 'shop_dev_key');
const ADMIN_KEY = keyOf(process.env.ADMIN_API_KEY ?? process.env.ADMIN_API_KEYS, 'admin_dev_key');

interface Answer {
  status: number;
  body: Record<string, unknown>;
  location: string | null;
}

async function call(method: string, path: string, key: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${API_URL}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: 'manual',
  });
  const text = await response.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    parsed = { text };
  }
  return { status: response.status, body: parsed, location: response.headers.get('location') };
}

const say = (line = '') => process.stdout.write(`${line}\n`);

function expectStatus(answer: Answer, wanted: number, what: string): void {
  if (answer.status !== wanted) {
    throw new Error(`${what}: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
  }
}

async function waitForStatus(reference: string, wanted: string, seconds = 60) {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const order = await call('GET', `/v1/orders/${encodeURIComponent(reference)}`, SHOP_KEY);
    expectStatus(order, 200, `GET /v1/orders/${reference}`);
    if (order.body.status === wanted) return order.body;
    if (Date.now() > deadline) {
      throw new Error(`order ${reference} is still ${String(order.body.status)}, wanted ${wanted}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

function printTimeline(order: Record<string, unknown>): void {
  say(
    `  ${String(order.reference)}: ${String(order.status)} ${String(order.amount)} ${String(order.currency)}` +
      (order.confirmation_code ? `, confirmation ${String(order.confirmation_code)}` : ''),
  );
  for (const event of (order.timeline as Record<string, unknown>[]) ?? []) {
    const change = event.to_status
      ? ` ${String(event.from_status ?? '-')} → ${String(event.to_status)}`
      : '';
    say(
      `    ${String(event.at)}  ${String(event.type).padEnd(20)} ${String(event.source).padEnd(7)}${change}`,
    );
  }
}

const customer = { email: 'amina@example.com', phone: '+254712345678', first_name: 'Amina' };
const stamp = Date.now().toString(36);

/** A checkout of the demo's customer in shillings, made at `path` (201): the answer's body. */
async function checkout(
  path: string,
  order: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const created = await call('POST', path, SHOP_KEY, { currency: 'KES', customer, ...order });
  expectStatus(created, 201, `POST ${path}`);
  return created.body;
}

/** Waits until the order is paid and says so: its reference. */
async function untilPaid(order: Record<string, unknown>): Promise<string> {
  const reference = String(order.reference);
  await waitForStatus(reference, 'completed');
  say('   completed.');
  return reference;
}

async function hostedCheckout(): Promise<string> {
  say('1. Hosted checkout: POST /v1/checkouts');
  const created = await checkout('/v1/checkouts', {
    amount: '1500.00',
    description: 'Two bags of coffee',
    reference: `DEMO-${stamp}-1`,
    return_url: 'https://shop.example/thank-you',
  });
  const redirectUrl = String(created.redirect_url);
  say(`   order_tracking_id ${String(created.order_tracking_id)}`);
  say(`   redirect_url      ${redirectUrl}`);

  say('   paying by card on the hosted page, as a customer would…');
  const page = new URL(redirectUrl);
  const paid = await fetch(new URL('/pesapaliframe/PesapalIframe3/Pay', page.origin), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      OrderTrackingId: String(created.order_tracking_id),
      action: 'card',
    }),
    redirect: 'manual',
  });
  const callback = paid.headers.get('location');
  if (paid.status !== 303 || !callback) throw new Error(`hosted page answered ${paid.status}`);
  say(`   the page sends the customer back to ${callback.split('?')[0]}`);
  const back = await fetch(callback, { redirect: 'manual' });
  say(`   …which redirects (${back.status}) to ${back.headers.get('location') ?? '?'}`);
  return untilPaid(created);
}

async function pushCheckout(): Promise<string> {
  say();
  say('2. Mobile money push: POST /v1/checkouts/mobile-money');
  const created = await checkout('/v1/checkouts/mobile-money', {
    amount: '250.00',
    description: 'Mobile top-up',
    reference: `DEMO-${stamp}-2`,
    phone: '+254712345678',
    network: 'MPESA',
  });
  say(
    `   prompt sent; manual payment: paybill ${String(created.business_number)}, account ${String(created.account_number)}`,
  );
  say('   waiting for the customer to enter the PIN (sandbox) and the IPN to arrive…');
  return untilPaid(created);
}

async function refund(reference: string): Promise<void> {
  say();
  say(`3. Refund: POST /v1/admin/orders/${reference}/refunds`);
  const answer = await call(
    'POST',
    `/v1/admin/orders/${encodeURIComponent(reference)}/refunds`,
    ADMIN_KEY,
    {
      amount: '1500.00',
      reason: 'Customer returned the coffee',
    },
  );
  if (answer.status === 404 && !('refund' in answer.body)) {
    say('   skipped: this build has no refund endpoint yet (404).');
    return;
  }
  if (answer.status >= 400) {
    say(`   refund refused: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
    return;
  }
  const recorded = answer.body.refund as Record<string, unknown> | undefined;
  say(`   refund ${String(recorded?.status ?? '?')} for ${String(recorded?.amount ?? '?')}`);
}

async function main(): Promise<void> {
  say(`pesapal-checkout demo against ${API_URL}`);
  const health = await fetch(`${API_URL}/health/live`).catch(() => null);
  if (!health?.ok) throw new Error(`no service at ${API_URL}: start it with npm start`);
  const hosted = await hostedCheckout();
  const push = await pushCheckout();
  await refund(hosted);
  say();
  say('Timelines:');
  for (const reference of [hosted, push]) {
    const order = await call('GET', `/v1/orders/${encodeURIComponent(reference)}`, SHOP_KEY);
    printTimeline(order.body);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
