import { readFileSync } from 'node:fs';
import { Browser, BrowserContext, Dialog, Page } from 'playwright-core';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AdminFixtures } from '../admin/admin-fixtures';
import { describeInBrowser, launchChromium, seriousViolations } from '../support/browser';
import { openTestDataSource } from '../support/database';
import { SeedRows } from '../support/seed-rows';
import { RunningService, startService, waitFor } from '../support/service';
import { startWebhookDispatcher } from '../merchant-events/webhook-harness';
import { startWebhookReceiver } from '../merchant-events/webhook-receiver';

/** The console (apps/console) in headless Chromium against the api and the sandbox gateway. */
describeInBrowser('the console in Chromium', () => {
  let service: RunningService;
  let dataSource: DataSource;
  let fixtures: AdminFixtures;
  let browser: Browser;
  // axe is added to the page as a script, which the console's policy refuses: its own context.
  let audited: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    service = await startService();
    dataSource = await openTestDataSource(4);
    fixtures = new AdminFixtures(service, dataSource);
    browser = await launchChromium();
    audited = await browser.newContext({ bypassCSP: true, viewport: { width: 1200, height: 900 } });
    page = await audited.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await dataSource?.destroy();
    await service?.close();
  });

  const consoleUrl = () => `${service.apiUrl}/admin`;

  async function signIn(target: Page, key: string) {
    await target.fill('#admin-key', key);
    await target.click('form button[type=submit]');
  }

  it('is served as files under a strict policy: no inline script, never framed', async () => {
    const html = await request(service.apiUrl).get('/admin');
    expect(html.status).toBe(200);
    const policy = String(html.headers['content-security-policy']);
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toContain('unsafe-inline');
    expect(html.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const script = await request(service.apiUrl).get('/admin/app.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toMatch(/^text\/javascript/);
  });

  it('signs in with an admin key only, and then shows the overview', async () => {
    await fixtures.hostedOrder();
    await page.goto(consoleUrl());
    expect(await seriousViolations(page)).toEqual([]);
    await signIn(page, 'not-a-key-of-ours');
    await page.waitForSelector('#sign-in-problem');
    expect(await page.textContent('#sign-in-problem')).toBe('That key is not an admin key.');
    await signIn(page, service.shopKey);
    await page.waitForSelector('#sign-in-problem');
    expect(await page.isVisible('#orders')).toBe(false);

    await signIn(page, service.adminKey);
    await page.waitForSelector('#overview');
    await page.click('nav a[href="#/orders"]');
    await page.waitForSelector('#orders tbody tr');
    expect(await page.textContent('#counts')).toMatch(/completed \d+/);

    // The queue view, a page of its own, opens with the session the key is exchanged for.
    await Promise.all([page.waitForURL('**/admin/queues**'), page.click('#queues')]);
    expect(await page.title()).not.toMatch(/error/i);

    // Signing out forgets the key and closes the queue view too; then signed in again.
    await page.goto(consoleUrl());
    await page.click('#sign-out');
    await page.waitForSelector('#admin-key');
    await waitFor('the queue view closed', async () => {
      const queues = await page.request.get(`${service.apiUrl}/admin/queues`);
      return queues.status() === 401 || null;
    });
    await signIn(page, service.adminKey);
    await page.waitForSelector('#overview');
    expect(pageErrors).toEqual([]);
  });

  it('the audit trail: refusals listed and filtered, the chain verified', async () => {
    const requestId = `console-audit-${Date.now()}`;
    const refused = await request(service.apiUrl)
      .get('/v1/admin/refunds')
      .set(service.shopAuth)
      .set('X-Request-Id', requestId);
    expect(refused.status).toBe(403);
    await waitFor('the refusal written', async () => {
      const written = await dataSource.query(`SELECT 1 FROM audit_events WHERE request_id = $1`, [
        requestId,
      ]);
      return written.length === 1 || null;
    });
    await page.goto('about:blank');
    await page.goto(`${consoleUrl()}#/audit`);
    await page.waitForSelector('#audit tbody tr');
    await page.fill('#audit-action', 'request.refused');
    await page.click('form[role=search] button[type=submit]');
    await waitFor('only refusals', async () => {
      const actions = await page.locator('#audit tbody tr td:nth-child(3)').allTextContents();
      return (actions.length > 0 && actions.every((a) => a === 'request.refused')) || null;
    });
    // Other suites refuse requests meanwhile: this one is found by its request id.
    await page.fill('#audit-request', requestId);
    await page.click('form[role=search] button[type=submit]');
    await waitFor(
      'the one refusal',
      async () => (await page.locator('#audit tbody tr').count()) === 1 || null,
    );
    // This test's refusal, with its request id and the key's name only.
    const row = page.locator('#audit tbody tr', { hasText: requestId });
    expect(await row.count()).toBe(1);
    expect(await row.textContent()).toContain('a shop key on an admin route');
    expect(await row.textContent()).toContain('shop:test-shop');
    expect(await page.textContent('#audit')).not.toContain(service.shopKey);
    await page.click('#verify');
    await page.waitForSelector('#verdict');
    expect(await page.textContent('#verdict')).toMatch(
      /^The trail is intact: \d+ rows checked\. Its head: row \d+, [0-9a-f]{64}\.$/,
    );
    expect(await seriousViolations(page)).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('access: who is signed in and what they may do; an API key made (its secret shown once), rolled and revoked', async () => {
    await page.goto('about:blank');
    await page.goto(`${consoleUrl()}#/access`);
    await page.waitForSelector('#who-am-i');
    expect(await page.textContent('#who-roles')).toBe('admin');
    expect(await page.textContent('#signed-in-as')).toContain('(admin)');
    // A key from the environment is an admin: every permission, each with what it allows.
    expect(await page.locator('#permissions li').count()).toBe(10);
    expect(await page.isVisible('#sign-out-everywhere')).toBe(false);
    await page.waitForSelector('#approval-list, #no-approvals');
    await page.waitForSelector('#api-key-list, #no-api-keys');
    expect(await page.getAttribute('#audit-link', 'href')).toBe('#/audit');
    expect(await seriousViolations(page)).toEqual([]);

    const name = `console-${Date.now()}`;
    await page.fill('#api-key-name', name);
    await page.check('#scope-orders-read');
    await page.click('#api-key-submit');
    await page.waitForSelector('#api-key-secret');
    const secret = (await page.textContent('#api-key-secret')) ?? '';
    expect(secret).toMatch(/^pck_/);
    expect(await page.textContent('#api-key-secret-box')).toContain('will not be shown again');
    const asKey = await request(service.apiUrl)
      .get('/v1/admin/session')
      .set('Authorization', `Bearer ${secret}`);
    expect(asKey.status).toBe(200);
    expect(asKey.body.operator.permissions).toEqual(['orders:read']);
    await page.click('#api-key-secret-done');
    expect(await page.isVisible('#api-key-secret')).toBe(false);
    const first = page.locator('#api-key-list tr', { hasText: name });
    await first.waitFor();
    expect(await first.textContent()).not.toContain(secret);

    // Rolled without a grace period: a new secret, the old one refused at once.
    await first.locator('button.roll').click();
    await page.fill('#roll-grace', '0');
    await page.click('#roll-submit');
    await page.waitForSelector('#api-key-secret');
    const rolled = (await page.textContent('#api-key-secret')) ?? '';
    expect(rolled).toMatch(/^pck_/);
    expect(rolled).not.toBe(secret);
    await page.click('#api-key-secret-done');
    await waitFor('the old secret refused', async () => {
      const old = await request(service.apiUrl)
        .get('/v1/admin/session')
        .set('Authorization', `Bearer ${secret}`);
      return old.status === 401 || null;
    });

    // Revoked after its confirmation: the new secret is refused too.
    const live = page
      .locator('#api-key-list tr', { hasText: name })
      .filter({ has: page.locator('.badge.active') });
    await live.waitFor();
    await live.locator('button.revoke').click();
    expect(await page.textContent('#revoke-confirm')).toContain(name);
    await page.click('#revoke-submit');
    await page.waitForSelector('#api-keys-said:text-matches("revoked$")');
    await waitFor('the new secret refused', async () => {
      const now = await request(service.apiUrl)
        .get('/v1/admin/session')
        .set('Authorization', `Bearer ${rolled}`);
      return now.status === 401 || null;
    });
    expect(pageErrors).toEqual([]);
  });

  it('the overview: totals, five charts and their numbers as a table, for each window', async () => {
    await fixtures.paidOrder('card');
    // A page of its own (a hash change alone would keep the overview read before the payment).
    await page.goto('about:blank');
    await page.goto(`${consoleUrl()}#/overview`);
    await page.waitForSelector('#overview');
    expect(await page.locator('figure.chart canvas').count()).toBeGreaterThanOrEqual(5);
    expect(await page.locator('figure.chart figcaption').allTextContents()).toEqual([
      'Checkouts per hour',
      'Outcomes',
      'Notification lag, 95th percentile (ms)',
      'Webhook attempts',
      'Refunds',
    ]);
    expect(await page.locator('#buckets tbody tr').count()).toBe(24);
    expect(await page.textContent('#total-paid')).toMatch(/^[1-9]\d* \(\d+\.\d%\)$/);
    expect(await page.locator('#money tbody tr').count()).toBeGreaterThan(0);
    await page.click('#overview details summary');
    expect(await page.isVisible('#buckets')).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);

    // One answer agrees with itself: its buckets add up to its totals.
    const checkoutsIn = async () =>
      (await page.locator('#buckets tbody tr td:nth-child(2)').allTextContents()).reduce(
        (sum, cell) => sum + Number(cell),
        0,
      );
    expect(String(await checkoutsIn())).toBe(
      (await page.textContent('#total-checkouts'))?.split(' ')[0],
    );

    // The window is chosen from the keyboard: the radio group moves with the arrow keys.
    await page.focus('input[name=window][value=day]');
    await page.keyboard.press('ArrowLeft');
    await waitFor(
      'the last hour per minute',
      async () => (await page.locator('#buckets tbody tr').count()) === 60 || null,
    );
    expect(await page.textContent('#buckets tbody tr td')).toMatch(/^\d{2}:\d{2} UTC$/);
    await page.click('input[name=window][value=month]');
    await waitFor(
      'the last 30 days per day',
      async () => (await page.locator('#buckets tbody tr').count()) === 30 || null,
    );
    expect(await page.textContent('#buckets tbody tr td')).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(await page.textContent('#overview-range')).toContain('(days in Africa/Nairobi)');
    expect(await seriousViolations(page)).toEqual([]);

    // Refresh reads it again: a payment made since is counted.
    const paidNow = async () => Number((await page.textContent('#total-paid'))?.split(' ')[0]);
    const before = await paidNow();
    await fixtures.paidOrder('card');
    await page.click('#refresh');
    await waitFor('the new payment counted', async () => {
      const shown = await page.$('#total-paid');
      return (shown && (await paidNow()) >= before + 1) || null;
    });
    expect(pageErrors).toEqual([]);
  });

  it('finds an order by its reference and shows it: summary, attempts and timeline', async () => {
    const paid = await fixtures.paidOrder('card');
    await page.goto(`${consoleUrl()}#/orders`);
    // Typed and sent from the keyboard.
    await page.focus('#search');
    await page.keyboard.type(paid.merchantReference);
    await page.keyboard.press('Enter');
    // The newest orders show first, this one among them: wait for the search's answer alone.
    await waitFor(
      'the search answered',
      async () => (await page.locator('#orders tbody tr').count()) === 1 || null,
    );
    await page.waitForSelector(`#orders a[href="#/orders/${paid.merchantReference}"]`);
    expect(await page.textContent('#orders tbody tr')).toContain('KES 1,500.00');
    expect(await seriousViolations(page)).toEqual([]);

    await page.click(`#orders a[href="#/orders/${paid.merchantReference}"]`);
    await page.waitForSelector('#summary');
    expect(await page.textContent('#reference')).toBe(paid.merchantReference);
    expect(await page.textContent('#summary')).toContain('completed');
    expect(await page.locator('#attempts tbody tr').count()).toBe(1);
    expect(await page.textContent('#timeline')).toMatch(/status changed → completed/);
    // Its merchant events, and each one's delivery attempts (no endpoint has been sent it yet).
    await page.waitForSelector('#events tbody tr');
    expect(await page.locator('#events tbody tr').allTextContents()).toEqual([
      expect.stringContaining('order.completed'),
    ]);
    await page.click('#events button.deliveries');
    await page.waitForSelector('#deliveries');
    expect(await page.getAttribute('#events button.deliveries', 'aria-expanded')).toBe('true');
    expect(await seriousViolations(page)).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('syncs an order, and refunds a paid one after a review that names the amount', async () => {
    const paid = await fixtures.paidOrder('card');
    const before = await fixtures.refundRequests();
    await page.goto(`${consoleUrl()}#/orders/${paid.merchantReference}`);
    await page.click('#sync');
    await page.waitForSelector('#said');
    expect(await page.textContent('#said')).toMatch(/^Synced with the gateway: unchanged/);

    await page.click('#refund');
    // More than was paid: refused by the API, with its code, and nothing is sent.
    await page.fill('#refund-amount', '99999.00');
    await page.fill('#refund-reason', 'customer returned the goods');
    await page.click('#refund-form button[type=submit]');
    await page.click('#refund-submit');
    await page.waitForSelector('#action-problem');
    expect(await page.textContent('#action-problem')).toMatch(/^[a-z_]+: /);
    expect(await fixtures.refundRequests()).toBe(before);

    await page.click('#refund');
    await page.fill('#refund-amount', '1500.00');
    await page.click('#refund-form button[type=submit]');
    expect(await page.textContent('#refund-review')).toContain('KES 1,500.00');
    await page.click('#refund-submit');
    await page.waitForSelector('#said');
    await page.waitForSelector('#said:text-matches("^Refund ")');
    expect(await page.textContent('#said')).toMatch(/^Refund (accepted|requested)/);
    expect(await fixtures.refundRequests()).toBe(before + 1);
    await page.waitForSelector('#summary');
    expect(await page.textContent('#summary')).toMatch(/Refund(accepted|requested) KES 1,500\.00/);
    expect(await page.isVisible('#refund')).toBe(false);

    // Among the refunds, newest first, under its status; the row leads back to the order.
    const status = (await page.textContent('#summary'))?.match(/Refund(accepted|requested)/)?.[1];
    await page.click('nav a[href="#/refunds"]');
    await page.waitForSelector('#refunds');
    await page.selectOption('#refund-status', status ?? 'accepted');
    const row = page.locator('#refunds tbody tr', { hasText: paid.merchantReference });
    await row.waitFor();
    expect(await row.textContent()).toContain('customer returned the goods');
    expect(await seriousViolations(page)).toEqual([]);
    await row.locator('a').click();
    await page.waitForSelector('#summary');
    expect(await page.textContent('#reference')).toBe(paid.merchantReference);
    expect(pageErrors).toEqual([]);
  });

  it('cancels an unpaid order after asking', async () => {
    const open = await fixtures.hostedOrder();
    await page.goto(`${consoleUrl()}#/orders/${open.merchantReference}`);
    await page.click('#cancel');
    expect(await page.textContent('#cancel-form')).toContain(open.merchantReference);
    await page.fill('#cancel-note', 'customer asked by phone');
    await page.click('#cancel-form button[type=submit]');
    await page.waitForSelector('#said');
    expect(await page.textContent('#said')).toBe('Order cancelled at the gateway');
    await page.waitForSelector('#summary');
    expect(await page.textContent('#summary')).toContain('cancelled');
    expect(await page.isVisible('#cancel')).toBe(false);
  });

  it('manages webhook endpoints: adds one (its secret shown once), tests it, sees the attempt, edits, disables and deletes it', async () => {
    const shop = await startWebhookReceiver();
    const dispatcher = await startWebhookDispatcher();
    const accept = (dialog: Dialog) => void dialog.accept();
    page.on('dialog', accept);
    try {
      await page.goto(`${consoleUrl()}#/webhooks`);
      await page.waitForSelector('#endpoint-form');
      expect(await seriousViolations(page)).toEqual([]);

      // A bad filter is refused with the field named, and nothing is added.
      await page.fill('#endpoint-url', shop.url);
      await page.fill('#endpoint-types', 'order.paid');
      await page.click('#endpoint-form button[type=submit]');
      await page.waitForSelector('#webhooks-problem');
      expect(await page.textContent('#webhooks-problem')).toMatch(
        /^validation_failed: event_types: each must be one of/,
      );

      // Subscribed to a type no other suite on this database emits, so only the test event comes.
      await page.fill('#endpoint-types', 'webhook_endpoint.disabled');
      await page.fill('#endpoint-description', 'console test');
      await page.click('#endpoint-form button[type=submit]');
      await page.waitForSelector('#secret-box');
      const secret = (await page.textContent('#secret-value')) ?? '';
      expect(secret).toMatch(/^whsec_/);
      shop.secrets.push(secret);
      await page.click('#secret-done');
      expect(await page.isVisible('#secret-box')).toBe(false);

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

      // Its attempt, with its answer and how long it took.
      const event = page.locator(`#events tr[data-event="${received.eventId}"]`);
      await waitFor('the test event delivered in the list', async () => {
        await page.goto(`${consoleUrl()}#/orders`);
        await page.goto(`${consoleUrl()}#/webhooks`);
        return /delivered/.test((await event.textContent({ timeout: 2000 }).catch(() => '')) ?? '');
      });
      await event.locator('button.deliveries').click();
      await page.locator('#deliveries td', { hasText: /^HTTP 200$/ }).waitFor();
      expect(await page.locator('#deliveries tbody tr').first().textContent()).toMatch(/\d+ ms/);

      // Edited: another filter and description, kept by the API and shown in the row.
      await row.locator('button.edit').click();
      await page.fill('#edit-types', 'webhook_endpoint.disabled, order.expired');
      await page.fill('#edit-description', 'console test, edited');
      await page.click('#edit-form button[type=submit]');
      await page.waitForSelector('#said:text-matches("changed$")');
      await waitFor(
        'the row edited',
        async () => /order\.expired/.test((await row.textContent()) ?? '') || null,
      );
      expect(await row.textContent()).toContain('console test, edited');

      await row.locator('button.disable').click();
      await page
        .locator('#endpoints tr', { hasText: shop.url })
        .locator('.badge.disabled')
        .waitFor();
      await page.locator('#endpoints tr', { hasText: shop.url }).locator('button.delete').click();
      await waitFor('the endpoint gone', async () => (await row.count()) === 0);
      expect(pageErrors).toEqual([]);
    } finally {
      page.off('dialog', accept);
      await dispatcher.close();
      await shop.close();
    }
  }, 60_000);

  it('needs attention: a failed notification is verified again; stuck orders and dead letters are listed', async () => {
    const failed = await new SeedRows(dataSource).notification('failed', 0);
    await page.goto(`${consoleUrl()}#/attention`);
    const row = page.locator(`#notifications tr[data-notification="${failed.id}"]`);
    await row.waitFor();
    await page.waitForSelector('#stuck, #no-stuck');
    await page.waitForSelector('#dead-letters, #no-dead-letters');
    expect(await page.textContent('#dead-counts')).toMatch(/notifications \d+/);
    expect(await seriousViolations(page)).toEqual([]);
    await row.locator('button.replay').click();
    await page.waitForSelector('#said');
    expect(await page.textContent('#said')).toBe('Notification sent through verification again');
    const [{ status }] = (await dataSource.query(
      `SELECT status FROM ipn_notifications WHERE id = $1`,
      [failed.id],
    )) as { status: string }[];
    expect(status).not.toBe('failed');
    expect(pageErrors).toEqual([]);
  });

  it('runs a reconciliation and shows its report among the latest', async () => {
    await page.goto(`${consoleUrl()}#/reconciliation`);
    await page.waitForSelector('#reports, #no-reports');
    await page.fill('#reconcile-hours', '1');
    await page.click('#reconcile-form button[type=submit]');
    await page.waitForSelector('#report-summary');
    expect(await page.textContent('#report-summary')).toMatch(
      /^\d+ orders checked over 1 h \(admin, test-admin\): \d+ mismatch/,
    );
    await page.waitForSelector('#reports li');
    expect(await page.textContent('#reports li')).toMatch(/admin: \d+ checked/);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('finance: the daily report of a range, the payments file, and a bad range refused with its field', async () => {
    const seed = new SeedRows(dataSource);
    const paid = await seed.moneyOrder({ paidAt: '2014-05-06T07:00:00.000Z', amount: '320.00' });
    await page.goto(`${consoleUrl()}#/finance`);
    await page.fill('#finance-from', '2014-05-06');
    await page.fill('#finance-to', '2014-05-06');
    await page.fill('#finance-tz', 'Africa/Nairobi');
    await page.click('#finance-form button[type=submit]');
    await page.waitForSelector('#daily tbody tr');
    expect(await page.textContent('#finance-range')).toContain('Africa/Nairobi');
    expect(await page.textContent('#daily tbody tr')).toMatch(/^2014-05-06Visa1 · KES 320\.00/);
    expect(await seriousViolations(page)).toEqual([]);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('#finance-export'),
    ]);
    expect(download.suggestedFilename()).toBe('payments_2014-05-06_2014-05-06_Africa-Nairobi.csv');
    expect(readFileSync((await download.path()) as string, 'utf8')).toContain(paid.reference);

    await page.fill('#finance-from', '2014-05-07');
    await page.click('#finance-form button[type=submit]');
    await page.waitForSelector('#finance-problem');
    expect(await page.textContent('#finance-problem')).toBe(
      'validation_failed: from: must not be after to',
    );
  });

  it('shows each page loading, then the API refusal with its code when the service is unavailable', async () => {
    const pages: [string, string][] = [
      ['#/overview', '**/v1/admin/overview?**'],
      ['#/audit', '**/v1/admin/audit?**'],
      ['#/orders', '**/v1/admin/orders?**'],
      ['#/attention', '**/v1/admin/orders/stuck?**'],
      ['#/refunds', '**/v1/admin/refunds?**'],
      ['#/webhooks', '**/v1/admin/webhook-endpoints'],
      ['#/reconciliation', '**/v1/admin/reconciliation-reports'],
      ['#/orders/ANY-ORDER', '**/v1/admin/orders/ANY-ORDER'],
    ];
    for (const [place, call] of pages) {
      // Held until the page has said it is loading, then answered as the api answers without
      // its database.
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route(call, async (route) => {
        await held;
        await route.fulfill({
          status: 503,
          contentType: 'application/json',
          headers: { 'retry-after': '2' },
          body: JSON.stringify({
            error: { code: 'database_unavailable', message: 'try again shortly' },
          }),
        });
      });
      await page.goto(`${consoleUrl()}${place}`);
      await page.waitForSelector('.loading[role=status]');
      release();
      await page.waitForSelector('.problem[role=alert]');
      expect(await page.textContent('.problem[role=alert]')).toBe(
        'database_unavailable: try again shortly',
      );
      await page.unroute(call);
    }
  });

  it('shows its loading, empty and refused states', async () => {
    // Loading: the answer held back until the page has said it is loading.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/v1/admin/orders?**', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${consoleUrl()}#/orders`);
    await page.waitForSelector('.loading[role=status]');
    release();
    await page.waitForSelector('#orders');
    await page.unroute('**/v1/admin/orders?**');

    await page.fill('#search', `NO-SUCH-ORDER-${Date.now()}`);
    await page.click('form[role=search] button');
    await page.waitForSelector('#no-orders');

    // Days: an order made today is found within today, and not in a range of days to come.
    const today = await fixtures.hostedOrder();
    const day = today.createdAt.toISOString().slice(0, 10);
    await page.fill('#search', today.merchantReference);
    await page.fill('#first-day', day);
    await page.fill('#last-day', day);
    await page.click('form[role=search] button');
    await page.waitForSelector(`#orders a[href="#/orders/${today.merchantReference}"]`);
    await page.fill('#first-day', '2099-01-01');
    await page.fill('#last-day', '2099-01-31');
    await page.click('form[role=search] button');
    await page.waitForSelector('#no-orders');
    await page.fill('#first-day', '');
    await page.fill('#last-day', '');

    await page.goto(`${consoleUrl()}#/orders/NO-SUCH-ORDER`);
    await page.waitForSelector('.problem[role=alert]');
    expect(await page.textContent('.problem[role=alert]')).toMatch(/^order_not_found: /);
  });

  it('is readable on a 360-pixel-wide screen, and without its policy bypassed', async () => {
    const narrow = await browser.newContext({ viewport: { width: 360, height: 740 } });
    try {
      const phone = await narrow.newPage();
      const refused: string[] = [];
      phone.on('console', (message) => {
        if (/Content.Security.Policy/i.test(message.text())) refused.push(message.text());
      });
      const paid = await fixtures.paidOrder('mobile_money', '250.00');
      await phone.goto(consoleUrl());
      await signIn(phone, service.adminKey);
      await phone.waitForSelector('#overview figure.chart canvas');
      await phone.click('#overview details summary');
      const overflow = () =>
        phone.evaluate(() => {
          const root = (
            globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }
          ).document.documentElement;
          return root.scrollWidth;
        });
      expect(await overflow()).toBeLessThanOrEqual(360);
      await phone.goto(`${consoleUrl()}#/orders`);
      await phone.waitForSelector('#orders tbody tr');
      expect(await overflow()).toBeLessThanOrEqual(360);
      await phone.goto(`${consoleUrl()}#/orders/${paid.merchantReference}`);
      await phone.waitForSelector('#summary');
      expect(await overflow()).toBeLessThanOrEqual(360);
      expect(refused).toEqual([]);
    } finally {
      await narrow.close();
    }
  });
});
