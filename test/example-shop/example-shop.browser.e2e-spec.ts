import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Browser, Page } from 'playwright-core';
import { createExampleShop } from '../../apps/example-shop/src/example-shop';
import { signWebhook } from '../../libs/shop-client/src';
import { describeInBrowser, launchChromium } from '../support/browser';
import { freePort, RunningService, startService, waitFor } from '../support/service';

/**
 * The example shop (apps/example-shop) in Chromium against the real api, worker and sandbox: a
 * customer pays by card; is declined and pays on a second attempt; leaves an M-Pesa prompt
 * unanswered; types a phone the api refuses. The merchant webhooks reach the shop verified, and a
 * forged one is refused.
 */
describeInBrowser('the example shop in Chromium', () => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  let service: RunningService;
  let shop: FastifyInstance;
  let shopUrl: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    const port = await freePort();
    shopUrl = `http://127.0.0.1:${port}`;
    service = await startService({
      worker: true,
      env: {
        ORDER_WEBHOOK_URL: `${shopUrl}/webhooks/payments`,
        ORDER_WEBHOOK_SECRET: secret,
        WEBHOOK_ALLOW_PRIVATE: 'true',
      },
    });
    shop = await createExampleShop({
      apiUrl: service.apiUrl,
      shopApiKey: service.shopKey,
      publicUrl: shopUrl,
      webhookSecret: secret,
      waitMs: 4_000,
    });
    await shop.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await shop?.close();
    await service?.close();
  });
  beforeEach(async () => {
    page = await browser.newPage();
  });
  afterEach(async () => {
    await page?.close();
  });

  const outcome = async () => {
    await page.waitForSelector('body[data-outcome]', { timeout: 20_000 });
    return page.getAttribute('body', 'data-outcome');
  };
  const referenceOnPage = async () => (await page.getAttribute('#order', 'data-reference')) ?? '';
  const webhookRows = async () => {
    const answer = await fetch(`${shopUrl}/webhooks`);
    return answer.text();
  };

  it('takes a card payment on the hosted page, follows it live and shows the receipt', async () => {
    await page.goto(shopUrl);
    expect(await page.textContent('#price')).toBe('KES 1500.00');
    // To the gateway's hosted page (the sandbox's), where the customer pays by card.
    await Promise.all([page.waitForURL('**/Index**'), page.click('#pay-card')]);
    await Promise.all([page.waitForURL(`${shopUrl}/orders/**`), page.click('#card')]);
    expect(await outcome()).toBe('paid');
    const reference = await referenceOnPage();
    await Promise.all([
      page.waitForURL(`${shopUrl}/orders/*/receipt`),
      page.click('#receipt-link a'),
    ]);
    expect(await page.textContent('#receipt-status')).toBe('Paid. Thank you!');
    expect(await page.textContent('#receipt-reference')).toBe(reference);
    expect(await page.textContent('#receipt-amount')).toBe('KES 1500.00');
    expect(await page.textContent('#receipt-code')).not.toBe('—');
    // The service's order.completed webhook reached the shop and was verified.
    await waitFor(
      'the order.completed webhook at the shop',
      async () => {
        const rows = await webhookRows();
        return (
          new RegExp(`accepted</td><td class="type">order.completed</td><td>${reference}<`).test(
            rows,
          ) || null
        );
      },
      20_000,
    );
  });

  it('offers "try again" after a declined payment and is paid on the second attempt', async () => {
    await page.goto(shopUrl);
    await Promise.all([page.waitForURL('**/Index**'), page.click('#pay-card')]);
    await Promise.all([page.waitForURL(`${shopUrl}/orders/**`), page.click('#fail')]);
    expect(await outcome()).toBe('failed');
    expect(await page.isVisible('#try-again')).toBe(true);
    const reference = await referenceOnPage();
    await Promise.all([page.waitForURL('**/Index**'), page.click('#retry')]);
    await Promise.all([page.waitForURL(`${shopUrl}/orders/**`), page.click('#card')]);
    expect(await outcome()).toBe('paid');
    await page.goto(`${shopUrl}/orders/${reference}/receipt`);
    expect(await page.textContent('#receipt-status')).toBe('Paid. Thank you!');
    expect(await page.textContent('#receipt-attempt')).toBe('2');
  });

  it('takes an M-Pesa phone typed with spaces, and says so when nobody answers the prompt', async () => {
    await page.goto(shopUrl);
    // The sandbox's phones ending in 3 never answer the prompt.
    await page.fill('#phone', '0712 345 673');
    await Promise.all([page.waitForURL(`${shopUrl}/orders/**`), page.click('#pay-mpesa')]);
    expect(await page.textContent('#state')).toMatch(/enter your M-Pesa PIN/);
    expect(await outcome()).toBe('pending');
    expect(await page.textContent('#state')).toMatch(/Still waiting/);
  });

  it("shows the api's error code and message for a phone it refuses, and changes nothing", async () => {
    await page.goto(shopUrl);
    const reference = (await page.inputValue('form:has(#pay-mpesa) input[name=reference]')) ?? '';
    await page.fill('#phone', '12');
    const [answer] = await Promise.all([
      page.waitForResponse(`${shopUrl}/checkout`),
      page.click('#pay-mpesa'),
    ]);
    expect(answer.status()).toBe(400);
    expect(await page.textContent('#refusal-code')).toBe('validation_failed');
    expect(await page.textContent('#refusal-message')).toMatch(/^phone: /);
    expect(await page.inputValue('#phone')).toBe('12');
    const order = await fetch(`${service.apiUrl}/v1/orders/${reference}`, {
      headers: service.shopAuth,
    });
    expect(order.status).toBe(404);
  });

  it('starts one payment for a double submit of the same form', async () => {
    await page.goto(shopUrl);
    const form = new URLSearchParams({
      method: 'mobile_money',
      email: 'amina@example.com',
      phone: '0712 345 673',
      reference: (await page.inputValue('form:has(#pay-mpesa) input[name=reference]')) ?? '',
    }).toString();
    const prompts = async () => (await service.sandbox.control.requests()).counts;
    const before = await prompts();
    const submit = () =>
      fetch(`${shopUrl}/checkout`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form,
        redirect: 'manual',
      });
    const [first, second] = await Promise.all([submit(), submit()]);
    expect([first.status, second.status]).toEqual([303, 303]);
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    const after = await prompts();
    expect(after.Stk - before.Stk).toBe(1);
  });

  it('refuses a forged webhook and lists it as refused', async () => {
    const body = JSON.stringify({
      type: 'order.completed',
      timestamp: new Date().toISOString(),
      data: { order: { reference: 'FORGED-1' } },
    });
    const forgedSecret = `whsec_${randomBytes(32).toString('base64')}`;
    const forged = await fetch(`${shopUrl}/webhooks/payments`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...signWebhook(forgedSecret, 'msg_forged_1', new Date(), body),
      },
      body,
    });
    expect(forged.status).toBe(400);
    expect(await forged.json()).toEqual({ error: 'signature' });
    const rows = await webhookRows();
    expect(rows).toContain('<td>msg_forged_1</td><td class="verdict">refused: signature</td>');
    expect(rows).not.toContain('FORGED-1');

    // Signed with the endpoint's secret it is accepted, and a redelivery of the same id is
    // acknowledged without being handled twice.
    const genuine = signWebhook(secret, 'msg_genuine_1', new Date(), body);
    const send = () =>
      fetch(`${shopUrl}/webhooks/payments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...genuine },
        body,
      });
    expect((await send()).status).toBe(204);
    const again = await send();
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ duplicate: true });
    expect(await webhookRows()).toContain(
      '<td>msg_genuine_1</td><td class="verdict">duplicate: already handled</td>',
    );
  });
});
