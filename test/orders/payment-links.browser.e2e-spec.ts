import { Browser, BrowserContext, Page } from 'playwright-core';
import request from 'supertest';
import { parse } from 'csv-parse/sync';
import { DataSource } from 'typeorm';
import { signIn } from '../console/console-support';
import { describeInBrowser, launchChromium, seriousViolations } from '../support/browser';
import { RunningService, startService, waitFor } from '../support/service';

/**
 * Payment links in Chromium against the api, the worker and the sandbox: a link made through the
 * API and one made in the console, each paid on its page at 360 px by card (the sandbox's hosted
 * page) and by M-Pesa (the sandbox's phone, which pays by itself); the page passes axe; the
 * order's merchant event and the finance export name the link.
 */
describeInBrowser('payment links in Chromium', () => {
  let service: RunningService;
  let db: DataSource;
  let browser: Browser;
  let phone: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    service = await startService({ worker: true });
    db = service.apiApp.get(DataSource);
    browser = await launchChromium();
    // A phone's screen; axe is added as a script, which the page's policy refuses: bypassed here.
    phone = await browser.newContext({ bypassCSP: true, viewport: { width: 360, height: 740 } });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await service?.close();
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
    const events = (await db.query(
      `SELECT payload -> 'order' ->> 'reference' AS reference FROM outbox_events
        WHERE type = 'order.completed' AND payload -> 'order' ->> 'payment_link' = $1`,
      [linkId],
    )) as { reference: string }[];
    expect(events.map((e) => e.reference).sort()).toEqual(payments.map((p) => p.reference).sort());
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
    await operatorContext.close();

    await payOnPage(linkUrl, 'card');
    await payOnPage(linkUrl, 'mpesa');
    await expectNamedEverywhere(linkUrl.split('/').pop() ?? '');
  });
});
