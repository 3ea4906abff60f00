import { request as httpRequest } from 'node:http';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { RunningService, startService, waitFor } from '../support/service';
import { getOrder } from '../checkout/support';

/**
 * Payment links through the API and their public page, against the real api, worker and sandbox:
 * made by a shop key and an admin key; paid by card (the hosted page) and by M-Pesa; single use
 * under two customers at once; expiry, deactivation and an open amount outside its bounds, each
 * starting nothing.
 */
describe('payment links', () => {
  let service: RunningService;
  let db: DataSource;

  beforeAll(async () => {
    service = await startService({ worker: true });
    db = service.apiApp.get(DataSource);
  }, 60_000);
  afterAll(async () => {
    await service?.close();
  });

  const api = () => request(service.apiUrl);
  const makeLink = async (body: Record<string, unknown>, auth = service.shopAuth) => {
    const answer = await api()
      .post('/v1/payment-links')
      .set(auth)
      .send({ currency: 'KES', description: 'Invoice 2041', ...body });
    expect(answer.status).toBe(201);
    return answer.body.payment_link as Record<string, unknown> & { id: string; url: string };
  };
  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
  const pay = (id: string, fields: Record<string, string>) =>
    fetch(`${service.apiUrl}/pay/${id}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form(fields),
    });
  const linkOf = async (id: string) =>
    (await api().get(`/v1/payment-links/${id}`).set(service.shopAuth)).body as {
      payment_link: Record<string, unknown>;
      payments: { reference: string; status: string }[];
    };
  const submissions = async () =>
    (await db.query(`SELECT count(*)::int AS n FROM orders WHERE payment_link_id IS NOT NULL`))[0]
      .n as number;

  it('makes a link with a shop key, lists, reads, changes and audits it', async () => {
    const link = await makeLink({ amount: '1500', max_payments: 1, reference_prefix: 'INV-A1' });
    expect(link).toMatchObject({
      status: 'active',
      amount: '1500.00',
      currency: 'KES',
      account: 'default',
      max_payments: 1,
      collect: ['email'],
      payments_completed: 0,
      amount_collected: '0.00',
      reference_prefix: 'INV-A1',
      url: `${service.apiUrl}/pay/${link.id}`,
    });
    const listed = await api()
      .get('/v1/payment-links?status=active&currency=KES')
      .set(service.adminAuth);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((item: { id: string }) => item.id)).toContain(link.id);
    const changed = await api()
      .patch(`/v1/payment-links/${link.id}`)
      .set(service.adminAuth)
      .send({ description: 'Invoice 2041, revised' });
    expect(changed.status).toBe(200);
    expect(changed.body.payment_link.description).toBe('Invoice 2041, revised');
    const actions = (await db.query(
      `SELECT action, actor_id FROM audit_events WHERE target = $1 ORDER BY seq`,
      [`payment_link:${link.id}`],
    )) as { action: string; actor_id: string }[];
    expect(actions).toEqual([
      { action: 'payment_link.created', actor_id: 'shop:test-shop' },
      { action: 'payment_link.changed', actor_id: 'test-admin' },
    ]);
    // The prefix names one link's payments only.
    const twin = await api()
      .post('/v1/payment-links')
      .set(service.shopAuth)
      .send({ currency: 'KES', description: 'Again', amount: '10', reference_prefix: 'INV-A1' });
    expect(twin.status).toBe(409);
    expect(twin.body.error.code).toBe('reference_prefix_in_use');
  });

  it('takes a scoped key holding payment_links:manage, and refuses one without it', async () => {
    const keyWith = async (scopes: string[]) => {
      const made = await api()
        .post('/v1/admin/api-keys')
        .set(service.adminAuth)
        .send({ name: `links ${scopes.join(' ')} ${Date.now()}`, scopes });
      expect(made.status).toBe(201);
      return { Authorization: `Bearer ${made.body.secret as string}` };
    };
    const body = { currency: 'KES', description: 'Made by a scoped key', amount: '10' };
    const allowed = await api()
      .post('/v1/payment-links')
      .set(await keyWith(['payment_links:manage']))
      .send(body);
    expect(allowed.status).toBe(201);
    expect(allowed.body.payment_link.created_by).toMatch(/^key:links payment_links:manage/);
    const before = (await db.query(`SELECT count(*)::int AS n FROM payment_links`))[0].n as number;
    const refused = await api()
      .post('/v1/payment-links')
      .set(await keyWith(['orders:read']))
      .send(body);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('payment_links:manage');
    expect((await db.query(`SELECT count(*)::int AS n FROM payment_links`))[0].n).toBe(before);
  });

  it('refuses bad links with the field and the reason, and makes none', async () => {
    const before = (await db.query(`SELECT count(*)::int AS n FROM payment_links`))[0].n as number;
    const cases: [Record<string, unknown>, string][] = [
      [{ amount: '10', min_amount: '5' }, 'min_amount'],
      [{ min_amount: '50', max_amount: '10' }, 'max_amount'],
      [{ amount: '10', collect: ['name'] }, 'collect'],
      [{ amount: '10', expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
      [
        { amount: '10', after_payment: { redirect_url: 'https://x.example', message: 'hi' } },
        'after_payment',
      ],
      [{ amount: '-3' }, 'amount'],
      [{ amount: '10', max_payments: 0 }, 'max_payments'],
    ];
    for (const [body, field] of cases) {
      const answer = await api()
        .post('/v1/payment-links')
        .set(service.shopAuth)
        .send({ currency: 'KES', description: 'Bad', ...body });
      expect([answer.status, answer.body.error.message]).toEqual([
        400,
        expect.stringContaining(`${field}`),
      ]);
    }
    const after = (await db.query(`SELECT count(*)::int AS n FROM payment_links`))[0].n as number;
    expect(after).toBe(before);
    const anonymous = await api().post('/v1/payment-links').send({});
    expect(anonymous.status).toBe(401);
  });

  it('takes a card payment on the page: the order names the link, which counts it', async () => {
    const link = await makeLink(
      { amount: '250.50', after_payment: { message: 'Thank you!' } },
      service.adminAuth,
    );
    const page = await fetch(link.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).toContain('KES 250.50');
    expect(html).not.toContain(service.shopKey);

    const started = await pay(link.id, { method: 'hosted', email: 'amina@example.com' });
    expect(started.status).toBe(303);
    expect(started.headers.get('location')).toContain(service.sandbox.origin);
    const { payments } = await linkOf(link.id);
    expect(payments).toHaveLength(1);
    const reference = payments[0].reference;
    expect(reference).toMatch(/^link-[0-9a-f]{12}-1$/);
    const order = await getOrder(service, reference);
    expect(order.body).toMatchObject({
      payment_link: link.id,
      amount: '250.50',
      status: 'pending',
    });

    await service.sandbox.control.settle(order.body.order_tracking_id, 'completed', 'card');
    await waitFor(
      'the link counts the payment',
      async () => ((await linkOf(link.id)).payment_link.payments_completed === 1 ? true : null),
      20_000,
    );
    expect((await linkOf(link.id)).payment_link).toMatchObject({
      status: 'active',
      amount_collected: '250.50',
      payments_started: 1,
    });
    // The waiting page needs the payment's token (the page's redirect carries it).
    expect((await fetch(`${link.url}/payments/${reference}`)).status).toBe(404);
    const token = new URLSearchParams(
      (
        await fetch(`${service.apiUrl}/v1/checkouts/return?OrderMerchantReference=${reference}`, {
          redirect: 'manual',
        })
      ).headers
        .get('location')
        ?.split('?')[1] ?? '',
    ).get('token');
    expect(token).toMatch(/^pst_/);
    const waiting = await fetch(`${link.url}/payments/${reference}?token=${token}`);
    const receipt = await waiting.text();
    expect(receipt).toContain('Paid. Thank you!');
    expect(receipt).toContain('Thank you!');
  });

  it('starts an M-Pesa prompt from the page and waits for it', async () => {
    const link = await makeLink({ min_amount: '10', max_amount: '100', collect: ['phone'] });
    const started = await pay(link.id, {
      method: 'mobile_money',
      amount: '55',
      phone: '0712 345 673',
    });
    expect(started.status).toBe(303);
    const location = started.headers.get('location') ?? '';
    expect(location).toMatch(new RegExp(`/pay/${link.id}/payments/`));
    const waiting = await fetch(location);
    expect(waiting.status).toBe(200);
    expect(await waiting.text()).toContain('enter your M-Pesa PIN');
    const [payment] = (await linkOf(link.id)).payments;
    const order = await getOrder(service, payment.reference);
    expect(order.body).toMatchObject({
      kind: 'mobile_money',
      amount: '55.00',
      payment_link: link.id,
    });
  });

  it('refuses an open amount outside its bounds on the page, and starts nothing', async () => {
    const link = await makeLink({ min_amount: '10', max_amount: '100' });
    const before = await submissions();
    for (const amount of ['5', '100.01', 'lots']) {
      const answer = await pay(link.id, { method: 'hosted', amount, email: 'amina@example.com' });
      expect(answer.status).toBe(400);
      expect(await answer.text()).toMatch(/<strong>amount<\/strong>: must be/);
    }
    expect(await submissions()).toBe(before);
    expect((await linkOf(link.id)).payment_link.payments_started).toBe(0);
  });

  it('lets one of two customers at once take the last use of a single-use link', async () => {
    const link = await makeLink({ amount: '700', max_payments: 1 });
    await service.sandbox.control.resetRequests();
    const answers = await Promise.all([
      pay(link.id, { method: 'hosted', email: 'one@example.com' }),
      pay(link.id, { method: 'hosted', email: 'two@example.com' }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([303, 409]);
    const taken = answers.find((a) => a.status === 409);
    expect(await taken?.text()).toContain('Someone is paying this link');
    const { payments } = await linkOf(link.id);
    expect(payments).toHaveLength(1);
    const submitted = (await service.sandbox.control.requests()) as {
      counts: Record<string, number>;
    };
    expect(submitted.counts.SubmitOrderRequest ?? 0).toBe(1);

    // Paid: the link is completed, its page is gone (410), and the shop hears of it.
    const order = await getOrder(service, payments[0].reference);
    await service.sandbox.control.settle(order.body.order_tracking_id, 'completed', 'card');
    await waitFor(
      'the link completed',
      async () => ((await linkOf(link.id)).payment_link.status === 'completed' ? true : null),
      20_000,
    );
    expect((await fetch(link.url)).status).toBe(410);
    const events = (await db.query(
      `SELECT payload FROM outbox_events WHERE type = 'payment_link.completed'
          AND payload -> 'payment_link' ->> 'id' = $1`,
      [link.id],
    )) as { payload: { payment_link: Record<string, unknown> } }[];
    expect(events).toHaveLength(1);
    expect(events[0].payload.payment_link).toMatchObject({
      payments_completed: 1,
      amount_collected: '700.00',
    });
  });

  it('cancels at the gateway an earlier payment that holds no use before a later one takes it', async () => {
    const link = await makeLink({ amount: '120', max_payments: 1 });
    expect((await pay(link.id, { method: 'hosted', email: 'one@example.com' })).status).toBe(303);
    const [first] = (await linkOf(link.id)).payments;
    // The first customer left: their hold ran out (its time set in the past).
    await db.query(
      `UPDATE payment_links SET holds = jsonb_build_object($2::text, '2000-01-01T00:00:00.000000Z')
        WHERE id = $1`,
      [link.id, first.reference],
    );
    await service.sandbox.control.resetRequests();
    expect((await pay(link.id, { method: 'hosted', email: 'two@example.com' })).status).toBe(303);
    expect((await getOrder(service, first.reference)).body.status).toBe('cancelled');
    const calls = (await service.sandbox.control.requests()) as { counts: Record<string, number> };
    expect(calls.counts.CancelOrder ?? 0).toBe(1);
    expect((await linkOf(link.id)).payments).toHaveLength(2);
  });

  it('keeps the use while the gateway may hold the order (no answer), and starts no second', async () => {
    const link = await makeLink({ amount: '80', max_payments: 1 });
    await service.sandbox.control.fault('SubmitOrderRequest', 'reset', { times: 10 });
    const unanswered = await pay(link.id, { method: 'hosted', email: 'amina@example.com' });
    expect(unanswered.status).toBe(502);
    expect(await unanswered.text()).toContain('Nothing was charged');
    const again = await pay(link.id, { method: 'hosted', email: 'amina@example.com' });
    expect(again.status).toBe(409);
    expect((await linkOf(link.id)).payments).toHaveLength(1);
  });

  it('sends the customer to wait for an M-Pesa prompt whose answer was lost', async () => {
    const link = await makeLink({ amount: '60', max_payments: 1 });
    await service.sandbox.control.fault('Stk', 'reset', { times: 1 });
    const started = await pay(link.id, {
      method: 'mobile_money',
      email: 'amina@example.com',
      mpesa_phone: '0712 345 673',
    });
    expect(started.status).toBe(303);
    expect(started.headers.get('location')).toMatch(new RegExp(`/pay/${link.id}/payments/`));
    const [payment] = (await linkOf(link.id)).payments;
    // The order is kept (the workers settle it at the gateway), and it holds the link's use.
    expect(payment.status).toBe('pending');
    expect((await pay(link.id, { method: 'hosted', email: 'b@example.com' })).status).toBe(409);
  });

  it('answers 410 for an expired or deactivated link and starts nothing', async () => {
    const soon = new Date(Date.now() + 1500).toISOString();
    const expiring = await makeLink({ amount: '20', expires_at: soon });
    const deactivated = await makeLink({ amount: '20' });
    const off = await api()
      .patch(`/v1/payment-links/${deactivated.id}`)
      .set(service.shopAuth)
      .send({ active: false });
    expect(off.body.payment_link.status).toBe('deactivated');
    const reactivate = await api()
      .patch(`/v1/payment-links/${deactivated.id}`)
      .set(service.shopAuth)
      .send({ active: true });
    expect(reactivate.status).toBe(400);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    const before = await submissions();
    for (const link of [expiring, deactivated]) {
      expect((await fetch(link.url)).status).toBe(410);
      const answer = await pay(link.id, { method: 'hosted', email: 'amina@example.com' });
      expect(answer.status).toBe(410);
    }
    expect(await submissions()).toBe(before);
    expect((await linkOf(expiring.id)).payment_link.status).toBe('expired');
    expect((await fetch(`${service.apiUrl}/pay/not-a-link`)).status).toBe(404);
  });

  it('limits the payments one address starts a minute (429 with Retry-After), starting nothing', async () => {
    const link = await makeLink({ min_amount: '10', max_amount: '100' });
    const url = new URL(`${service.apiUrl}/pay/${link.id}`);
    // From an address of its own (loopback is 127/8): the other tests' payments do not count.
    const post = () =>
      new Promise<{ status: number; retryAfter: string | undefined }>((resolve, reject) => {
        const body = form({ method: 'hosted', amount: '5', email: 'amina@example.com' });
        const sent = httpRequest(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: 'POST',
            localAddress: '127.0.0.2',
            headers: {
              'content-type': 'application/x-www-form-urlencoded',
              'content-length': Buffer.byteLength(body),
            },
          },
          (answer) => {
            answer.resume();
            answer.on('end', () =>
              resolve({
                status: answer.statusCode ?? 0,
                retryAfter: answer.headers['retry-after'] as string | undefined,
              }),
            );
          },
        );
        sent.on('error', reject);
        sent.end(body);
      });
    const statuses: number[] = [];
    for (let i = 0; i < 20; i += 1) statuses.push((await post()).status);
    // Each refused for its amount (5 is below the link's 10), none limited yet.
    expect(new Set(statuses)).toEqual(new Set([400]));
    const limited = await post();
    expect(limited.status).toBe(429);
    expect(Number(limited.retryAfter)).toBeGreaterThan(0);
    expect((await linkOf(link.id)).payment_link.payments_started).toBe(0);
  });
});
