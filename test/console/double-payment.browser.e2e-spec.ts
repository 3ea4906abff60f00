import { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { getOrder, hostedBody, postCheckout } from '../checkout/support';
import { describeInBrowser, launchChromium } from '../support/browser';
import { RunningService, startService, waitFor } from '../support/service';

/**
 * The console shows an order's payment attempts, and an operator refunds a double payment's second
 * payment there, after a review that names it.
 */
describeInBrowser('a double payment in the console', () => {
  let service: RunningService;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    service = await startService({ worker: true });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 1300 } });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  const statusOf = async (reference: string) => (await getOrder(service, reference)).body;

  it('lists the attempts and refunds the second payment after its review', async () => {
    // Attempt 1 fails, attempt 2 pays, then attempt 1's payment lands late: a double payment.
    const body = hostedBody();
    const reference = String(body.reference);
    const first = (await postCheckout(service, body)).body.order_tracking_id as string;
    await service.sandbox.control.settle(first, 'failed', 'card');
    await waitFor('failed', async () => (await statusOf(reference)).status === 'failed' || null);
    const retry = await request(service.apiUrl)
      .post(`/v1/orders/${reference}/attempts`)
      .set(service.shopAuth)
      .send({ method: 'hosted' });
    await service.sandbox.control.settle(retry.body.order_tracking_id, 'completed', 'card');
    await waitFor('paid', async () => (await statusOf(reference)).status === 'completed' || null);
    await service.sandbox.control.settle(first, 'completed', 'card');
    await waitFor('flagged', async () => (await statusOf(reference)).needs_review || null);

    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${service.apiUrl}/admin#/orders/${reference}`);
    await page.fill('#admin-key', service.adminKey);
    await page.click('form button[type=submit]');
    await page.waitForSelector('#attempts');

    const rows = page.locator('#attempts tbody tr');
    await waitFor('the attempts', async () => (await rows.count()) === 2 || null);
    expect(await rows.nth(0).textContent()).toContain(first);
    expect(await rows.nth(1).textContent()).toContain('2 (current)');
    // Only the second payment is refunded here; the order's own is refunded as usual.
    expect(await rows.nth(1).locator('button').count()).toBe(0);
    await rows.nth(0).locator('button.second-payment').click();
    expect(await page.textContent('#second-payment-summary')).toContain('attempt 1');
    expect((await service.sandbox.control.order(first)).refund_requests).toBe(0);

    // The requester is the signed-in operator: nothing to type but the confirmation.
    await page.click('#second-payment-submit');
    await page.locator('#attempts tr[data-attempt="1"] .badge.accepted').waitFor();
    expect((await service.sandbox.control.order(first)).refund_requests).toBe(1);
    expect(await page.textContent('#said')).toBe('Second payment refund accepted');
    expect(await page.locator('#attempts tr[data-attempt="1"] button').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
