import { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { AdminFixtures } from '../admin/admin-fixtures';
import { describeInBrowser, seriousViolations } from '../support/browser';
import { RunningService, waitFor } from '../support/service';
import { consoleInChromium, signIn } from './console-support';

/**
 * The console's serving and its policy, signing in and out, and its layout on a phone's screen.
 * In headless Chromium against the api and the sandbox gateway (./console-support.ts).
 */
describeInBrowser('the console in Chromium', () => {
  const the = consoleInChromium();
  let service: RunningService;
  let fixtures: AdminFixtures;
  let browser: Browser;
  let page: Page;
  const { pageErrors, consoleUrl } = the;
  beforeAll(() => {
    ({ service, fixtures, browser, page } = the);
  });

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
