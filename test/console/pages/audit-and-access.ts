import { Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import request from 'supertest';
import { seriousViolations } from '../../support/browser';
import { RunningService, waitFor } from '../../support/service';
import type { ConsoleInChromium } from '../console-support';
import { PERMISSIONS } from '@app/domain';

/**
 * The console's audit trail and its access page (who is signed in, API keys).
 * Registered in ../console.browser.e2e-spec.ts, which signs in once for every page.
 */
export function auditAndAccessPages(the: ConsoleInChromium): void {
  let service: RunningService;
  let dataSource: DataSource;
  let page: Page;
  const { pageErrors, consoleUrl } = the;
  beforeAll(() => {
    ({ service, dataSource, page } = the);
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
    expect(await page.locator('#permissions li').count()).toBe(PERMISSIONS.length);
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
}
