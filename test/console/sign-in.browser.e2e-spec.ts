import { randomBytes } from 'node:crypto';
import { Browser, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { AdminFixtures } from '../admin/admin-fixtures';
import { describeInBrowser, launchChromium } from '../support/browser';
import { openTestDataSource } from '../support/database';
import { IdentityProvider, startIdentityProvider } from '../support/identity-provider';
import { freePorts, RunningService, startService, waitFor } from '../support/service';

/**
 * People sign in to the console through a real OpenID provider (oidc-provider, its development
 * login) in Chromium: roles from their groups, a refund above the threshold waiting for a second
 * person who approves it from the Access page (the gateway asked once), a viewer offered no
 * refund, and an idle session sending the person back to sign in.
 */
/** Logins of this file's own (`sam.<run>` has sam's groups): other files sign people in too. */
const RUN = randomBytes(3).toString('hex');
const person = (name: string) => `${name}.${RUN}`;

describeInBrowser('console sign-in with the identity provider, in Chromium', () => {
  let idp: IdentityProvider;
  let service: RunningService;
  let dataSource: DataSource;
  let fixtures: AdminFixtures;
  let browser: Browser;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    // Each needs the other's address before it starts: the ports are chosen first, and a suite
    // running beside this one may take one before it is used. Then both start on new ones.
    for (let attempt = 1; ; attempt += 1) {
      const [apiPort, idpPort] = await freePorts(2);
      let provider: IdentityProvider | undefined;
      try {
        provider = await startIdentityProvider(`http://127.0.0.1:${apiPort}`, idpPort);
        service = await startService({
          port: apiPort,
          env: { ...provider.env, REFUND_APPROVAL_THRESHOLD: 'KES:1000' },
        });
        idp = provider;
        break;
      } catch (error) {
        await provider?.close().catch(() => undefined);
        if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt === 3) throw error;
      }
    }
    dataSource = await openTestDataSource(2);
    fixtures = new AdminFixtures(service, dataSource);
    await service.sandbox.control.notifications('drop');
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await dataSource?.destroy();
    await service?.close();
    await idp?.close();
  });

  /** A person's own browser, signed in through the provider's login page. */
  async function signedIn(login: string, at = '/admin'): Promise<Page> {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${service.apiUrl}${at}`);
    await page.click('#sign-in-sso');
    await page.waitForSelector('input[name=login]');
    expect(page.url()).toContain(idp.issuer);
    await page.fill('input[name=login]', person(login));
    await page.fill('input[name=password]', 'any password');
    await page.click('button[type=submit]');
    await page.waitForSelector('#signed-in-as');
    expect(page.url().startsWith(`${service.apiUrl}/admin`)).toBe(true);
    return page;
  }

  it('signs a person in with the roles of their groups; a second person approves the refund the first asked for', async () => {
    const paid = await fixtures.paidOrder('card', '1500.00');
    const before = await fixtures.refundRequests();

    const sam = await signedIn('sam');
    expect(await sam.textContent('#signed-in-as')).toContain(`${person('sam')}@example.test`);
    await sam.goto(`${service.apiUrl}/admin#/access`);
    await sam.waitForSelector('#who-roles');
    expect(await sam.textContent('#who-roles')).toContain('refund_requester');

    await sam.goto(`${service.apiUrl}/admin#/orders/${paid.merchantReference}`);
    await sam.click('#refund');
    await sam.fill('#refund-amount', '1500.00');
    await sam.fill('#refund-reason', 'returned the tickets');
    await sam.click('#refund-form button[type=submit]');
    await sam.click('#refund-submit');
    await sam.waitForSelector('#said:text-matches("waiting")');
    expect(await fixtures.refundRequests()).toBe(before);

    const fiona = await signedIn('fiona', `/admin#/access`);
    await fiona.goto(`${service.apiUrl}/admin#/access`);
    await fiona.waitForSelector('#approval-list');
    const row = fiona.locator('#approval-list tr', { hasText: paid.merchantReference });
    const id = await row.getAttribute('data-approval');
    expect(await row.textContent()).toContain(`${person('sam')}@example.test`);
    await fiona.click(`[data-testid="approve-${id}"]`);
    await fiona.click('#approve-submit');
    await fiona.waitForSelector('#approvals-said');
    expect(await fiona.textContent('#approvals-said')).toMatch(/accepted/i);
    expect(await fixtures.refundRequests()).toBe(before + 1);
    const [refund] = (await dataSource.query(
      `SELECT status, requested_by FROM refunds WHERE id = $1`,
      [id],
    )) as { status: string; requested_by: string }[];
    expect(refund).toEqual({ status: 'accepted', requested_by: `${person('sam')}@example.test` });
    expect(pageErrors).toEqual([]);
  });

  it("offers a viewer no refund, and the api refuses a viewer's refund from the page (403)", async () => {
    const paid = await fixtures.paidOrder('card', '500.00');
    const vic = await signedIn('vic');
    await vic.goto(`${service.apiUrl}/admin#/orders/${paid.merchantReference}`);
    await vic.waitForSelector('#summary');
    expect(await vic.isVisible('#refund')).toBe(false);
    const status = await vic.evaluate(async (reference) => {
      const me = (await (await fetch('/v1/admin/session')).json()) as {
        session: { csrf_token: string };
      };
      const answer = await fetch(`/v1/admin/orders/${reference}/refunds`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': me.session.csrf_token },
        body: JSON.stringify({ amount: '500.00', reason: 'from the page' }),
      });
      return answer.status;
    }, paid.merchantReference);
    expect(status).toBe(403);
  });

  it('sends a person idle past the limit back to sign in', async () => {
    const audrey = await signedIn('audrey');
    await dataSource.query(
      `UPDATE operator_sessions SET last_seen_at = now() - interval '16 minutes'
        WHERE subject = $1 AND revoked_at IS NULL`,
      [person('audrey')],
    );
    await audrey.reload();
    await waitFor('the sign-in page', async () => (await audrey.$('#sign-in-sso')) ?? null);
    expect(await audrey.isVisible('#signed-in-as')).toBe(false);
  });
});
