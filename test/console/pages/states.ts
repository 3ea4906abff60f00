import { Page } from 'playwright-core';
import { AdminFixtures } from '../../admin/admin-fixtures';
import type { ConsoleInChromium } from '../console-support';

/**
 * The console's loading, empty and refused states.
 * Registered in ../console.browser.e2e-spec.ts, which signs in once for every page.
 */
export function pageStates(the: ConsoleInChromium): void {
  let fixtures: AdminFixtures;
  let page: Page;
  const { consoleUrl } = the;
  beforeAll(() => {
    ({ fixtures, page } = the);
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
}
