import { randomBytes } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { Browser, BrowserContext, Page } from 'playwright-core';
import request from 'supertest';
import { parse } from 'csv-parse/sync';
import { signIn } from '../console/console-support';
import { describeInBrowser, launchChromium, seriousViolations } from '../support/browser';
import { freePort, RunningService, startService, waitFor } from '../support/service';

/**
 * Payment links in Chromium against the api, the worker and the sandbox: a link made through the
 * API and one made in the console, each paid on its page at 360 px by card (the sandbox's hosted
 * page) and by M-Pesa (the sandbox's phone, which pays by itself); the page passes axe; the
 * shop's webhook endpoint hears each payment named with the link, and so does the finance export;
 * the console shows the link's payments and deactivates it; a declined card offers "try again".
 */
describeInBrowser('payment links in Chromium', () => {
  let service: RunningService;
  let receiver: Server;
  /** The merchant webhooks the shop's endpoint received, as sent. */
  const delivered: {
    type: string;
    data: { order?: { reference: string; payment_link: string | null } };
  }[] = [];
  let browser: Browser;
  let phone: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    receiver = createServer((incoming, answer) => {
      let body = '';
      incoming.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      incoming.on('end', () => {
        delivered.push(JSON.parse(body) as (typeof delivered)[number]);
        answer.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
    service = await startService({
      worker: true,
      env: {
        ORDER_WEBHOOK_URL: `http://127.0.0.1:${port}/webhooks`,
        ORDER_WEBHOOK_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
        WEBHOOK_ALLOW_PRIVATE: 'true',
      },
    });
    browser = await launchChromium();
    // A phone's screen; axe is added as a script, which the page's policy refuses: bypassed here.
    phone = await browser.newContext({ bypassCSP: true, viewport: { width: 360, height: 740 } });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await service?.close();
    await new Promise((resolve) => receiver?.close(resolve));
  });
  beforeEach(async () => {
    page = await phone.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });
  afterEach(async () => {
    await page?.close();
    expect(pageErrors).toEqual([]);
  });

  const paymentsOf = async (id: string) =>
    (await request(service.apiUrl).get(`/v1/payment-links/${id}`).set(service.adminAuth)).body as {
      payment_link: { payments_completed: number; amount_collected: string; status: string };
      payments: { reference: string; status: string; kind: string }[];
    };

  /** Pays the link on its page: by card on the gateway's hosted page, or by M-Pesa. */
  async function payOnPage(url: string, method: 'card' | 'mpesa'): Promise<void> {
    await page.goto(url);
    expect(await seriousViolations(page)).toEqual([]);
    await page.fill('#email', 'amina@example.com');
    if (method === 'card') {
      await Promise.all([page.waitForURL('**/Index**'), page.click('#pay-card')]);
      await Promise.all([page.waitForURL('**/pay/*/payments/**'), page.click('#card')]);
    } else {
      await page.click('#mpesa summary');
      await page.fill('#mpesa-phone', '0712 345 678');
      await Promise.all([page.waitForURL('**/pay/*/payments/**'), page.click('#pay-mpesa')]);
      expect(await page.textContent('#state')).toMatch(/M-Pesa PIN/);
    }
    await page.waitForSelector('#state:text-is("Paid. Thank you!")', { timeout: 20_000 });
    expect(await page.isVisible('#receipt')).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
  }

  /** Both payments completed, named by the order's merchant event and the finance export. */
  async function expectNamedEverywhere(linkId: string): Promise<void> {
    const { payment_link, payments } = await waitFor(
      'both payments counted',
      async () => {
        const read = await paymentsOf(linkId);
        return read.payment_link.payments_completed === 2 ? read : null;
      },
      20_000,
    );
    expect(payments.map((p) => p.kind).sort()).toEqual(['hosted', 'mobile_money']);
    expect(payment_link.amount_collected).toBe('1500.00');
    // The shop's webhook endpoint hears each payment's order.completed, naming the link.
    const heard = await waitFor(
      'both order.completed webhooks',
      async () => {
        const named = delivered.filter(
          (event) => event.type === 'order.completed' && event.data.order?.payment_link === linkId,
        );
        return named.length === 2 ? named : null;
      },
      20_000,
    );
    expect(heard.map((event) => event.data.order?.reference).sort()).toEqual(
      payments.map((p) => p.reference).sort(),
    );
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const csv = await request(service.apiUrl)
      .get(`/v1/admin/exports/payments.csv?from=${today}&to=${tomorrow}&tz=UTC`)
      .set(service.adminAuth);
    expect(csv.status).toBe(200);
    const rows = (parse(csv.text, { columns: true }) as Record<string, string>[]).filter(
      (row) => row.payment_link === linkId,
    );
    expect(rows.map((row) => row.merchant_reference).sort()).toEqual(
      payments.map((p) => p.reference).sort(),
    );
  }

  it('pays a link made through the API by card and by M-Pesa', async () => {
    const made = await request(service.apiUrl)
      .post('/v1/payment-links')
      .set(service.shopAuth)
      .send({ amount: '750', currency: 'KES', description: 'Invoice 77: a sack of beans' });
    expect(made.status).toBe(201);
    const link = made.body.payment_link as { id: string; url: string };
    await payOnPage(link.url, 'card');
    await payOnPage(link.url, 'mpesa');
    await expectNamedEverywhere(link.id);
  });

  it('makes a link in the console, shows its QR code, and it is paid by card and by M-Pesa', async () => {
    const operatorContext = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const admin = await operatorContext.newPage();
    admin.on('pageerror', (error) => pageErrors.push(error.message));
    await admin.goto(`${service.apiUrl}/admin`);
    await signIn(admin, service.adminKey);
    await admin.waitForSelector('#overview');
    await admin.goto(`${service.apiUrl}/admin#/payment-links`);
    await admin.click('#new-link');
    await admin.fill('#link-description', 'Market stall: two baskets');
    await admin.fill('#link-amount', '750');
    await admin.click('#link-submit');
    const linkUrl = (await (await admin.waitForSelector('#link-url')).textContent()) ?? '';
    expect(linkUrl).toMatch(new RegExp(`^${service.apiUrl}/pay/[0-9a-f-]{36}$`));
    const qr = await admin.waitForSelector('#link-qr');
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml/);
    expect(await admin.textContent('#payment-links')).toContain('Market stall: two baskets');

    await payOnPage(linkUrl, 'card');
    await payOnPage(linkUrl, 'mpesa');
    const linkId = linkUrl.split('/').pop() ?? '';
    await expectNamedEverywhere(linkId);

    // The operator sees both payments, then deactivates the link: its page is gone.
    await admin.reload();
    await admin.click(`tr[data-link="${linkId}"] .show-link`);
    await admin.waitForSelector('#link-payments');
    expect(await admin.locator('#link-payments tbody tr').count()).toBe(2);
    await admin.click(`tr[data-link="${linkId}"] .deactivate`);
    await admin.click('#deactivate-submit');
    await admin.waitForSelector('#said');
    expect(await admin.textContent('#said')).toContain('deactivated');
    await operatorContext.close();
    const closed = await page.goto(linkUrl);
    expect(closed?.status()).toBe(410);
    expect(await page.textContent('#notice')).toBe('This payment link is no longer active.');
  });

  it('offers "try again" after a declined card, and the next try pays', async () => {
    const made = await request(service.apiUrl)
      .post('/v1/payment-links')
      .set(service.shopAuth)
      .send({ amount: '300', currency: 'KES', description: 'Delivery fee', max_payments: 1 });
    const link = made.body.payment_link as { id: string; url: string };
    await page.goto(link.url);
    await page.fill('#email', 'amina@example.com');
    await Promise.all([page.waitForURL('**/Index**'), page.click('#pay-card')]);
    await Promise.all([page.waitForURL('**/pay/*/payments/**'), page.click('#fail')]);
    await page.waitForSelector('#try-again:not([hidden])', { timeout: 20_000 });
    expect(await page.textContent('#state')).toBe('The payment did not go through.');
    // The declined payment gave its use back: the single-use link takes the next try.
    await Promise.all([page.waitForURL(link.url), page.click('#try-again a')]);
    await payOnPage(link.url, 'card');
    expect((await paymentsOf(link.id)).payment_link.status).toBe('completed');
  });
});
