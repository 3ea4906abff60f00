import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { describeInBrowser, launchChromium } from '../support/browser';
import { openTestDataSource } from '../support/database';
import { RunningService, startService, waitFor } from '../support/service';
import { startWebhookDispatcher } from '../merchant-events/webhook-harness';
import { startWebhookReceiver } from '../merchant-events/webhook-receiver';
import { parse } from 'csv-parse/sync';
import { readFileSync } from 'node:fs';
import { SeedRows } from '../support/seed-rows';
import { AdminFixtures } from './admin-fixtures';

const ARTIFACTS = join(__dirname, '..', 'artifacts');

describeInBrowser('operations page in headless Chromium', () => {
  let service: RunningService;
  let dataSource: DataSource;
  let fixtures: AdminFixtures;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    service = await startService({ env: { RUN_MIGRATIONS: 'true' } });
    dataSource = await openTestDataSource();
    fixtures = new AdminFixtures(service, dataSource);
    await service.sandbox.control.notifications('drop');
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 1300 } });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await dataSource?.destroy();
    await service?.close();
  });

  it('signs in with a typed key, finds an order, refunds it after confirming, and shows the timeline', async () => {
    const paid = await fixtures.paidOrder('card');
    await fixtures.hostedOrder();
    const before = await fixtures.refundRequests();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));

    await page.goto(`${service.apiUrl}/admin`);
    await page.fill('#admin-key', 'shop-key-is-not-enough');
    await page.click('#key-form button[type=submit]');
    await page.waitForSelector('#message.error');
    expect(await page.isHidden('#app')).toBe(true);

    await page.fill('#admin-key', service.adminKey);
    await page.click('#key-form button[type=submit]');
    await page.waitForSelector('#app:not([hidden])');
    // The key is kept in this tab's sessionStorage only (the project compiles without DOM types).
    const stored = await page.evaluate(
      () => (globalThis as unknown as { sessionStorage: { length: number } }).sessionStorage.length,
    );
    expect(stored).toBe(1);
    await page.waitForSelector('#counts button[data-status="completed"]');
    expect(await page.textContent('#counts button[data-status="completed"]')).toMatch(
      /completed [1-9]/,
    );

    // Search by the confirmation code, open the order.
    await page.fill('#search', paid.confirmationCode as string);
    await page.click('#search-form button[type=submit]');
    await waitFor(
      'the search result',
      async () => (await page.locator('#orders tr').count()) === 1,
    );
    const row = page.locator(`#orders tr[data-reference="${paid.merchantReference}"]`);
    await row.click();
    await page.waitForSelector('#detail:not([hidden])');
    expect(await page.textContent('#detail-title')).toContain(paid.merchantReference);
    expect(await page.inputValue('#refund-amount')).toBe('1500.00');

    // A partial amount needs the explicit confirmation before the review step.
    await page.fill('#refund-amount', '400.00');
    await page.fill('#refund-reason', 'one ticket returned');
    await page.fill('#refund-requested-by', 'ops@shop');
    await page.waitForSelector('#partial-row:not([hidden])');
    await page.click('#refund-review');
    expect(await page.textContent('#message')).toContain('partial refund must be confirmed');
    expect(await page.isHidden('#refund-confirm')).toBe(true);
    await page.check('#refund-confirm-partial');
    await page.click('#refund-review');
    await page.waitForSelector('#refund-confirm:not([hidden])');
    expect(await page.textContent('#refund-summary')).toContain('KES 400.00 (PARTIAL)');
    expect(await fixtures.refundRequests()).toBe(before);

    await page.click('#refund-submit');
    await page.locator('#timeline td', { hasText: /^refund_accepted$/ }).waitFor();
    expect(await page.textContent('#refund-existing')).toContain(
      'Refund accepted: KES 400.00 (partial)',
    );
    expect(await page.isHidden('#refund-form')).toBe(true);
    const timeline = await page.locator('#timeline tr').allTextContents();
    expect(timeline.join('\n')).toMatch(/refund_requested.*admin.*test-admin/);
    expect(await fixtures.refundRequests()).toBe(before + 1);

    // Stuck orders and counts are one click away.
    await page.click('.tab[data-tab="stuck"]');
    await page.waitForSelector('#stuck tr');
    await page.click('.tab[data-tab="orders"]');

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'operations-page.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
  }, 60_000);
  it('manages webhook endpoints: adds one, shows its secret once, sends a test, shows the attempt, disables and deletes it', async () => {
    const shop = await startWebhookReceiver();
    const dispatcher = await startWebhookDispatcher();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('dialog', (dialog) => void dialog.accept());
    try {
      await page.click('.tab[data-tab="webhooks"]');
      await page.waitForSelector('#tab-webhooks:not([hidden])');

      // A bad filter is refused with the field named, and nothing is added.
      await page.fill('#endpoint-url', shop.url);
      await page.fill('#endpoint-types', 'order.paid');
      await page.click('#endpoint-form button[type=submit]');
      await page.waitForSelector('#message.error');
      expect(await page.textContent('#message')).toMatch(/^event_types: each must be one of/);

      // Subscribed to a type no other suite on this database emits, so only the test event comes.
      await page.fill('#endpoint-types', 'webhook_endpoint.disabled');
      await page.fill('#endpoint-description', 'browser test');
      await page.click('#endpoint-form button[type=submit]');
      await page.waitForSelector('#secret-box:not([hidden])');
      const secret = (await page.textContent('#secret-value')) ?? '';
      expect(secret).toMatch(/^whsec_/);
      shop.secrets.push(secret);
      await page.click('#secret-done');
      expect(await page.textContent('#secret-value')).toBe('');

      const row = page.locator('#endpoints tr', { hasText: shop.url });
      await row.waitFor();
      expect(await row.textContent()).toContain('webhook_endpoint.disabled');
      expect(await row.textContent()).not.toContain(secret);

      await row.locator('button.test').click();
      const [received] = await waitFor('the test event', async () =>
        shop.received.length > 0 ? shop.received : undefined,
      );
      expect(received.type).toBe('webhook.test');
      expect(received.verifiedWith).toEqual([secret]);

      // Its attempt, with status and latency, from the events list.
      const event = page.locator(`#events tr[data-event="${received.eventId}"]`);
      await waitFor('the event delivered in the list', async () => {
        await page.click('#events-form button[type=submit]');
        return /delivered/.test((await event.textContent({ timeout: 2000 }).catch(() => '')) ?? '');
      });
      await event.click();
      await page.locator('#attempts td', { hasText: /^HTTP 200$/ }).waitFor();
      expect(await page.locator('#attempts tr').first().textContent()).toMatch(/ms/);

      await row.locator('button.disable').click();
      await page
        .locator('#endpoints tr', { hasText: shop.url })
        .locator('.badge.disabled')
        .waitFor();
      await page.locator('#endpoints tr', { hasText: shop.url }).locator('button.delete').click();
      await waitFor('the endpoint gone', async () => (await row.count()) === 0);
      expect(pageErrors).toEqual([]);
    } finally {
      await dispatcher.close();
      await shop.close();
    }
  }, 60_000);

  it('finance: shows the daily report of a range and downloads the payments file; a bad range is refused with its field', async () => {
    const seed = new SeedRows(dataSource);
    const paid = await seed.moneyOrder({
      paidAt: '2015-08-03T07:00:00.000Z',
      amount: '250.00',
      description: '=cmd|calc',
    });
    await seed.moneyRefund(paid.id, {
      status: 'accepted',
      amount: '50.00',
      acceptedAt: '2015-08-04T07:00:00.000Z',
    });
    await seed.moneyOrder({ failedAt: '2015-08-04T08:00:00.000Z', paymentMethod: null });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));

    // Signed in afresh: the key typed once, kept by the tab.
    await page.goto(`${service.apiUrl}/admin`);
    // The tab kept the key: the page checks it and shows the app; the form only if it was refused.
    await page.waitForSelector('#app:not([hidden]), #key-form:not([hidden])');
    if (await page.isVisible('#key-form')) {
      await page.fill('#admin-key', service.adminKey);
      await page.click('#key-form button[type=submit]');
    }
    await page.waitForSelector('#app:not([hidden])');
    await page.click('.tab[data-tab="finance"]');
    await page.waitForSelector('#tab-finance:not([hidden])');
    await page.fill('#finance-from', '2015-08-03');
    await page.fill('#finance-to', '2015-08-04');
    await page.fill('#finance-tz', 'Africa/Nairobi');
    await page.click('#finance-form button[type=submit]');
    // The tab first shows this month: wait for the answer for the range asked, then its rows.
    await waitFor('the range asked', async () =>
      /^From 2015-08-02T21:00:00\.000Z/.test((await page.textContent('#finance-range')) ?? ''),
    );
    await waitFor('the daily rows', async () => (await page.locator('#daily tr').count()) === 3);
    const rows = await page.locator('#daily tr').allTextContents();
    expect(rows[0]).toMatch(/^2015-08-03KESVisa1250\.000/);
    expect(rows.some((row) => /^2015-08-04KESVisa00\.001-50\.00/.test(row))).toBe(true);
    expect(await page.textContent('#finance-range')).toContain('Africa/Nairobi');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('#finance-export'),
    ]);
    expect(download.suggestedFilename()).toBe('payments_2015-08-03_2015-08-04_Africa-Nairobi.csv');
    const file = parse(readFileSync((await download.path()) as string, 'utf8'), {
      columns: true,
    }) as Record<string, string>[];
    expect(file.map((row) => [row.type, row.merchant_reference, row.amount])).toEqual([
      ['payment', paid.reference, '250.00'],
      ['refund', paid.reference, '-50.00'],
    ]);
    expect(file[0].description).toBe("'=cmd|calc");

    // Refused: the API's code and the field, on the page; nothing downloaded.
    await page.fill('#finance-from', '2015-08-05');
    await page.click('#finance-form button[type=submit]');
    await page.waitForSelector('#message.error');
    expect(await page.textContent('#message')).toBe(
      'validation_failed: from: must not be after to',
    );
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
