import { Browser, BrowserContext, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { AdminFixtures } from '../admin/admin-fixtures';
import { launchChromium } from '../support/browser';
import { openTestDataSource } from '../support/database';
import { RunningService, startService } from '../support/service';

/**
 * The console (apps/console) in headless Chromium against the api and the sandbox gateway, as the
 * console's suites share it: set up before a suite's tests, closed after them.
 */
export interface ConsoleInChromium {
  service: RunningService;
  dataSource: DataSource;
  fixtures: AdminFixtures;
  browser: Browser;
  page: Page;
  /** Errors thrown in `page`; each suite expects none. */
  pageErrors: string[];
  consoleUrl: () => string;
}

export async function signIn(target: Page, key: string) {
  await target.fill('#admin-key', key);
  await target.click('form button[type=submit]');
}

/**
 * Registers the suite's beforeAll/afterAll. `signedIn`: an order made and the page signed in with
 * the admin key before the suite's tests, for the pages behind the sign-in.
 */
export function consoleInChromium(options: { signedIn?: boolean } = {}): ConsoleInChromium {
  const the = {
    pageErrors: [] as string[],
    consoleUrl: () => `${the.service.apiUrl}/admin`,
  } as ConsoleInChromium;
  // axe is added to the page as a script, which the console's policy refuses: its own context.
  let audited: BrowserContext | undefined;

  beforeAll(async () => {
    the.service = await startService();
    the.dataSource = await openTestDataSource(4);
    the.fixtures = new AdminFixtures(the.service, the.dataSource);
    the.browser = await launchChromium();
    audited = await the.browser.newContext({
      bypassCSP: true,
      viewport: { width: 1200, height: 900 },
    });
    the.page = await audited.newPage();
    the.page.on('pageerror', (error) => the.pageErrors.push(error.message));
    if (options.signedIn) {
      // An order to list: the pages' tests expect the orders table, not its empty state.
      await the.fixtures.hostedOrder();
      await the.page.goto(the.consoleUrl());
      await signIn(the.page, the.service.adminKey);
      await the.page.waitForSelector('#overview');
      // Off the console (signed in still): a suite's first visit loads its page, whichever it is.
      await the.page.goto('about:blank');
    }
  }, 60_000);
  afterAll(async () => {
    await the.browser?.close();
    await the.dataSource?.destroy();
    await the.service?.close();
  });

  return the;
}
