import { Browser, BrowserContext, Page } from 'playwright-core';
import request from 'supertest';
import { IpnId } from '@app/domain';
import { OrderEntity, UnmatchedPaymentEntity } from '@app/persistence';
import { AdminFixtures } from '../admin/admin-fixtures';
import { notify } from '../ipn/ipn-support';
import { describeInBrowser, launchChromium, seriousViolations } from '../support/browser';
import { ownTestDatabase } from '../support/database';
import { RunningService, startService, waitFor } from '../support/service';

/**
 * The console's page of payments without an order, in Chromium against the api, the worker and
 * the sandbox: payments the gateway took for orders our database never held (as on its own
 * dashboard), kept from their notifications, then settled from the page, one matched to an
 * unpaid order of ours and one refunded.
 */
describeInBrowser('payments without an order in the console', () => {
  let service: RunningService;
  let database: Awaited<ReturnType<typeof ownTestDatabase>>;
  let fixtures: AdminFixtures;
  let ipnId: IpnId;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    // Its own database: the page lists this suite's payments only.
    database = await ownTestDatabase('console_unmatched');
    service = await startService({
      worker: true,
      env: {
        QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}_console_unmatched`,
        POLL_SCHEDULE_SECONDS: '600',
        // An unknown tracking id is looked up on its second try, 200 ms after the first.
        IPN_UNMATCHED_RETRY_MS: '200',
      },
    });
    fixtures = new AdminFixtures(service, database.dataSource);
    ipnId = (await fixtures.gateway.registerIpn(`${service.apiUrl}/v1/ipn/elsewhere`, 'POST'))
      .ipnId;
    // The gateway's own notifications go nowhere: the test sends the ones it needs.
    await service.sandbox.control.notifications('drop');
    browser = await launchChromium();
    // axe is added to the page as a script, which the console's policy refuses.
    context = await browser.newContext({ bypassCSP: true, viewport: { width: 1200, height: 900 } });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await service?.close();
    await database?.drop();
  });

  /** Paid at the gateway for an order it alone holds, notified once, and kept by the worker. */
  async function kept(amount: string): Promise<UnmatchedPaymentEntity> {
    const paid = await fixtures.paidAtGatewayOnly(ipnId, amount);
    expect((await notify(service, paid)).status).toBe(200);
    return waitFor('the payment kept', async () =>
      database.dataSource
        .getRepository(UnmatchedPaymentEntity)
        .findOneBy({ orderTrackingId: paid.trackingId }),
    );
  }

  /** A tab of its own (the key is kept per tab), signed in with the key. */
  async function signIn(key: string) {
    await page?.close();
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${service.apiUrl}/admin#/unmatched-payments`);
    await page.fill('#admin-key', key);
    await page.click('form button[type=submit]');
  }

  const rowOf = (payment: UnmatchedPaymentEntity) =>
    page.locator(`#unmatched-payments tr[data-payment="${payment.id}"]`);

  it('lists them with what the gateway says of each; one is matched to an unpaid order, one refunded', async () => {
    const toMatch = await kept('1500.00');
    const toRefund = await kept('700.00');
    const order = await fixtures.hostedOrder({}, '1500.00');
    await signIn(service.adminKey);

    const row = rowOf(toMatch);
    await row.waitFor();
    expect(await page.locator('nav a[href="#/unmatched-payments"]').textContent()).toBe(
      'Payments without an order',
    );
    const cells = await row.locator('td').allTextContents();
    expect(cells.slice(0, 6)).toEqual([
      toMatch.orderTrackingId,
      '1,500.00',
      'KES',
      toMatch.merchantReference,
      toMatch.paymentMethod,
      toMatch.confirmationCode,
    ]);
    expect(cells[6]).toBe('just now');
    expect(cells[7]).toBe('open');
    expect(await seriousViolations(page)).toEqual([]);

    // An order that does not pay it: refused by the API with its code, and nothing settled.
    await row.locator('button.match').click();
    expect(await page.textContent('#match-title')).toContain('KES 1,500.00');
    await page.fill('#match-reference', 'NOBODY-HAS-THIS');
    await page.click('#match-submit');
    await page.waitForSelector('#unmatched-problem');
    expect(await page.textContent('#unmatched-problem')).toMatch(/^order_not_found: /);

    await page.fill('#match-reference', order.merchantReference);
    await page.click('#match-submit');
    await page.waitForSelector('#said');
    expect(await page.textContent('#said')).toBe(
      `Payment matched to order ${order.merchantReference}, now completed`,
    );
    // The page lists the open ones first: the matched one is no longer among them.
    await waitFor('the matched payment gone from the open ones', async () =>
      (await row.count()) === 0 ? true : null,
    );
    const paid = await database.dataSource
      .getRepository(OrderEntity)
      .findOneByOrFail({ id: order.id });
    expect(paid).toMatchObject({
      status: 'completed',
      confirmationCode: toMatch.confirmationCode,
      orderTrackingId: toMatch.orderTrackingId,
    });

    // Refunded in full with its reason, below the approval threshold: sent at once.
    const other = rowOf(toRefund);
    await other.locator('button.refund').click();
    expect(await page.textContent('#unmatched-refund-title')).toContain('KES 700.00');
    await page.fill('#unmatched-refund-reason', 'nobody ordered this');
    await page.click('#unmatched-refund-submit');
    await page.waitForSelector('#said:text-matches("^Refund ")');
    expect(await page.textContent('#said')).toMatch(
      new RegExp(`^Refund accepted(: .+)? \\(order UNMATCHED-${toRefund.orderTrackingId}\\)$`),
    );
    expect((await service.sandbox.control.order(toRefund.orderTrackingId)).refund_requests).toBe(1);

    // Every status: each settled one with how, and the order it went to; no action left on them.
    await page.selectOption('#unmatched-status', '');
    await rowOf(toMatch).locator('.badge.matched').waitFor();
    expect(await rowOf(toMatch).locator('a').getAttribute('href')).toBe(
      `#/orders/${order.merchantReference}`,
    );
    expect(await rowOf(toRefund).locator('.badge.refund_requested').textContent()).toBe(
      'refund requested',
    );
    expect(await rowOf(toRefund).textContent()).toContain(`UNMATCHED-${toRefund.orderTrackingId}`);
    expect(await page.locator('#unmatched-payments button').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it('offers neither act to an operator who may only read', async () => {
    const payment = await kept('300.00');
    const made = await request(service.apiUrl)
      .post('/v1/admin/api-keys')
      .set(service.adminAuth)
      .send({ name: 'console-reader', scopes: ['admin:read'] });
    expect(made.status).toBe(201);
    await signIn(made.body.secret as string);
    await rowOf(payment).waitFor();
    expect(await page.locator('#unmatched-payments button').count()).toBe(0);
    expect(await page.textContent('#main')).toContain(
      'Matching a payment to an order needs the permission operations:write',
    );
    expect(await page.textContent('#main')).toContain(
      'Refunding a payment needs the permission refunds:request',
    );
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
