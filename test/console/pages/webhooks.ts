import { Dialog, Page } from 'playwright-core';
import { seriousViolations } from '../../support/browser';
import { waitFor } from '../../support/service';
import { startWebhookDispatcher } from '../../merchant-events/webhook-harness';
import { startWebhookReceiver } from '../../merchant-events/webhook-receiver';
import type { ConsoleInChromium } from '../console-support';

/**
 * The console's webhook endpoints and their deliveries.
 * Registered in ../console.browser.e2e-spec.ts, which signs in once for every page.
 */
export function webhooksPage(the: ConsoleInChromium): void {
  let page: Page;
  const { pageErrors, consoleUrl } = the;
  beforeAll(() => {
    ({ page } = the);
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
}
