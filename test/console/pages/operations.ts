import { readFileSync } from 'node:fs';
import { Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { seriousViolations } from '../../support/browser';
import { SeedRows } from '../../support/seed-rows';
import type { ConsoleInChromium } from '../console-support';

/**
 * The console's operations pages: needs attention, reconciliation and finance.
 * Registered in ../console.browser.e2e-spec.ts, which signs in once for every page.
 */
export function operationsPages(the: ConsoleInChromium): void {
  let dataSource: DataSource;
  let page: Page;
  const { pageErrors, consoleUrl } = the;
  beforeAll(() => {
    ({ dataSource, page } = the);
  });

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
}
