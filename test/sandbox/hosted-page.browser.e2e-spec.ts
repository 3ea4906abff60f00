import { Browser } from 'playwright-core';
import { describeInBrowser, launchChromium } from '../support/browser';
import { RunningSandbox, startSandbox } from '../support/sandbox';
import { GatewayCaller } from './gateway-http';
import { Receiver } from './receiver';

describeInBrowser('sandbox hosted page in a real headless Chromium', () => {
  let sandbox: RunningSandbox;
  let gw: GatewayCaller;
  let shop: Receiver;
  let browser: Browser;
  let ipnId: string;

  beforeAll(async () => {
    sandbox = await startSandbox();
    gw = await new GatewayCaller(sandbox).authenticate();
    shop = await new Receiver().start();
    ipnId = await gw.registerIpn(`${shop.url}/ipn`, 'GET');
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await sandbox?.close();
    await shop?.stop();
  });

  const createOrder = async (): Promise<{ redirectUrl: string; id: string; ref: string }> => {
    const body = gw.order(ipnId, {
      amount: 1499.5,
      description: 'Kikoy <scarf>',
      callback_url: `${shop.url}/return?cart=7`,
      cancellation_url: `${shop.url}/cancelled`,
    });
    const res = await gw.post('/Transactions/SubmitOrderRequest', body);
    return {
      redirectUrl: res.json.redirect_url,
      id: res.json.order_tracking_id,
      ref: body.id as string,
    };
  };

  it('a customer opens redirect_url, pays by card and lands on callback_url', async () => {
    const { redirectUrl, id, ref } = await createOrder();
    const page = await browser.newPage();
    try {
      const refusedByPolicy: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) refusedByPolicy.push(message.text());
      });
      const response = await page.goto(redirectUrl);
      const headers = response?.headers() ?? {};
      const policy = headers['content-security-policy'] ?? '';
      expect(policy).toContain("default-src 'none'");
      expect(policy).toContain('frame-ancestors *');
      expect(policy).not.toContain('unsafe-inline');
      expect(headers['x-content-type-options']).toBe('nosniff');
      expect(headers['referrer-policy']).toBe('no-referrer');
      // The one inline style is allowed by its hash: the page is styled, nothing was refused.
      const bodyWidth = await page.evaluate('getComputedStyle(document.body).maxWidth');
      expect(bodyWidth).toBe('448px');
      expect(await page.textContent('#amount')).toBe('KES 1499.5');
      expect(await page.textContent('#description')).toBe('Kikoy <scarf>');
      await Promise.all([page.waitForURL(`${shop.url}/return**`), page.click('#card')]);
      expect(refusedByPolicy).toEqual([]);
      const landed = new URL(page.url());
      expect(landed.pathname).toBe('/return');
      expect(Object.fromEntries(landed.searchParams)).toEqual({
        cart: '7',
        OrderTrackingId: id,
        OrderMerchantReference: ref,
        OrderNotificationType: 'CALLBACKURL',
      });
      const hit = shop.received.find((r) => r.url.pathname === '/return');
      expect(hit?.url.searchParams.get('OrderTrackingId')).toBe(id);
      const status = await gw.get(`/Transactions/GetTransactionStatus?orderTrackingId=${id}`);
      expect(status.json.status_code).toBe(1);
      expect(status.json.confirmation_code).toMatch(/^\d{22}$/);
    } finally {
      await page.close();
    }
  });

  it('cancelling goes to cancellation_url and leaves the order payable', async () => {
    const { redirectUrl, id } = await createOrder();
    const page = await browser.newPage();
    try {
      await page.goto(redirectUrl);
      await Promise.all([page.waitForURL(`${shop.url}/cancelled**`), page.click('#cancel')]);
      expect(new URL(page.url()).searchParams.get('OrderTrackingId')).toBe(id);
      const status = await gw.get(`/Transactions/GetTransactionStatus?orderTrackingId=${id}`);
      expect(status.json.error.message).toBe('Pending Payment');
    } finally {
      await page.close();
    }
  });
});
