import { Page } from 'playwright-core';
import { AdminFixtures } from '../../admin/admin-fixtures';
import { seriousViolations } from '../../support/browser';
import { waitFor } from '../../support/service';
import type { ConsoleInChromium } from '../console-support';

/**
 * The console's orders: found and shown, synced, refunded and cancelled.
 * Registered in ../console.browser.e2e-spec.ts, which signs in once for every page.
 */
export function ordersPages(the: ConsoleInChromium): void {
  let fixtures: AdminFixtures;
  let page: Page;
  const { pageErrors, consoleUrl } = the;
  beforeAll(() => {
    ({ fixtures, page } = the);
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
}
