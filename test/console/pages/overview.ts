import { Page } from 'playwright-core';
import { AdminFixtures } from '../../admin/admin-fixtures';
import { seriousViolations } from '../../support/browser';
import { waitFor } from '../../support/service';
import type { ConsoleInChromium } from '../console-support';

/**
 * The console's overview: totals and charts for each window.
 * Registered in ../console.browser.e2e-spec.ts, which signs in once for every page.
 */
export function overviewPage(the: ConsoleInChromium): void {
  let fixtures: AdminFixtures;
  let page: Page;
  const { pageErrors, consoleUrl } = the;
  beforeAll(() => {
    ({ fixtures, page } = the);
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
}
