import { postWebhook } from '@app/checkout/merchant-events/worker/webhook-sender';
import { newSecret } from './webhook-harness';
import { WebhookReceiver, startWebhookReceiver } from './webhook-receiver';
import { Problem, webhookEndpointsSuite } from './webhook-endpoints-suite';
import { createApiUnderContract } from '../support/api-contract';

/** What admins may not set on an endpoint, and the addresses deliveries may not reach. */
describe('merchant webhooks (Standard Webhooks): endpoints admins manage, delivery, operator tools', () => {
  const { harness, endpointWithReceiver } = webhookEndpointsSuite('webhook_input');

  it('refuses bad admin input with a 400 naming the field, and changes nothing', async () => {
    const before = (await (await harness.admin('/v1/admin/webhook-endpoints')).json()) as {
      data: unknown[];
    };
    const refused = async (
      path: string,
      method: string,
      body: unknown,
      field: string,
      reason: RegExp,
    ) => {
      const answer = await harness.admin(path, { method, body });
      expect(answer.status).toBe(400);
      const { error } = (await answer.json()) as { error: { code: string; errors: Problem[] } };
      expect(error.code).toBe('validation_failed');
      expect(error.errors).toContainEqual({ field, reason: expect.stringMatching(reason) });
    };
    const create = '/v1/admin/webhook-endpoints';
    await refused(create, 'POST', { url: 'not a url' }, 'url', /absolute http\(s\) URL/);
    await refused(create, 'POST', { url: 'ftp://shop.example/hooks' }, 'url', /http\(s\)/);
    await refused(create, 'POST', {}, 'url', /./);
    await refused(
      create,
      'POST',
      { url: 'https://shop.example/hooks', event_types: ['order.paid'] },
      'event_types',
      /each must be one of order\.completed/,
    );
    await refused(
      create,
      'POST',
      { url: 'https://shop.example/hooks', event_types: [] },
      'event_types',
      /at least one event type/,
    );
    await refused(
      create,
      'POST',
      { url: 'https://shop.example/hooks', secret: 'whsec_mine' },
      'secret',
      /should not exist/,
    );

    const { endpoint } = await endpointWithReceiver();
    try {
      const one = `/v1/admin/webhook-endpoints/${endpoint.id}`;
      await refused(one, 'PATCH', { event_types: [] }, 'event_types', /at least one/);
      await refused(one, 'PATCH', { enabled: 'yes' }, 'enabled', /boolean/);
      await refused(
        `${one}/rotate-secret`,
        'POST',
        { overlap_seconds: -1 },
        'overlap_seconds',
        /0/,
      );
      await refused(`${one}/replay`, 'POST', { since: 'yesterday' }, 'since', /ISO 8601/);
      expect(await harness.endpointState(endpoint.id)).toMatchObject({
        event_types: null,
        state: 'enabled',
      });

      const unknown = await harness.admin(
        '/v1/admin/webhook-endpoints/00000000-0000-4000-8000-000000000000',
      );
      expect(unknown.status).toBe(404);
      expect((await harness.admin('/v1/admin/webhook-endpoints/not-an-id')).status).toBe(404);
      expect(
        (await harness.admin('/v1/admin/webhook-endpoints', { key: 'shop_key_webhook_endpoints' }))
          .status,
      ).toBe(403);

      // ORDER_WEBHOOK_URL's endpoint follows the environment, not the API.
      const environment = (
        (await (await harness.admin('/v1/admin/webhook-endpoints')).json()) as {
          data: { id: string; source: string }[];
        }
      ).data.find((e) => e.source === 'environment')!;
      const path = `/v1/admin/webhook-endpoints/${environment.id}`;
      for (const [method, suffix, body] of [
        ['PATCH', '', { url: 'https://elsewhere.example/' }],
        ['DELETE', '', undefined],
        ['POST', '/rotate-secret', {}],
      ] as const) {
        const answer = await harness.admin(`${path}${suffix}`, { method, body });
        expect(answer.status).toBe(409);
        expect(((await answer.json()) as { error: { code: string } }).error.code).toBe(
          'webhook_endpoint_managed_by_environment',
        );
      }
    } finally {
      await harness.deleteEndpoint(endpoint.id);
    }
    const after = (await (await harness.admin('/v1/admin/webhook-endpoints')).json()) as {
      data: unknown[];
    };
    expect(after.data).toEqual(before.data);
  });
});

describe('the SSRF guard of webhook endpoints', () => {
  let shop: WebhookReceiver;
  beforeAll(async () => {
    shop = await startWebhookReceiver();
  });
  afterAll(() => shop.close());

  it('refuses to POST to a loopback address unless private addresses are allowed', async () => {
    for (const url of [shop.url, shop.url.replace('127.0.0.1', 'localhost')]) {
      const refused = await postWebhook({
        url,
        eventId: '00000000-0000-4000-8000-000000000001',
        body: '{}',
        secrets: [newSecret()],
        timeoutMs: 1000,
        allowPrivate: false,
      });
      expect(refused).toMatchObject({
        status: null,
        error: expect.stringMatching(/^refused: .*loopback/),
      });
    }
    expect(shop.received).toHaveLength(0);

    const allowed = await postWebhook({
      url: shop.url,
      eventId: '00000000-0000-4000-8000-000000000002',
      body: '{}',
      secrets: [newSecret()],
      timeoutMs: 1000,
      allowPrivate: true,
    });
    expect(allowed).toMatchObject({ status: 200, error: null });
    expect(shop.received).toHaveLength(1);
  });
});

describe('webhook endpoints in production mode', () => {
  const savedEnv = { ...process.env };
  let api: import('@nestjs/platform-fastify').NestFastifyApplication;
  let apiUrl = '';
  const key = 'admin_key_production_webhooks';

  beforeAll(async () => {
    Object.assign(process.env, {
      NODE_ENV: 'production',
      RUN_MIGRATIONS: 'false',
      ADMIN_API_KEYS: `ops:${key}`,
      SHOP_API_KEYS: 'shop_key_production_webhooks',
      PUBLIC_BASE_URL: 'https://checkout.shop.example',
      PESAPAL_CONSUMER_KEY: 'production-test-key',
      PESAPAL_CONSUMER_SECRET: 'production-test-secret',
      IPN_PATH_SECRET: 'production-test-ipn-path',
      STATUS_TOKEN_SECRET: 'production-test-status-token-secret-0123456789',
      ADMIN_AUTH_SECRET: 'production-test-admin-auth-secret-0123456789',
      LOG_LEVEL: 'silent',
    });
    delete process.env.WEBHOOK_ALLOW_PRIVATE;
    api = await createApiUnderContract();
    await api.listen(0, '127.0.0.1');
    const address = api.getHttpServer().address();
    if (!address || typeof address === 'string') throw new Error('api did not bind a TCP port');
    apiUrl = `http://127.0.0.1:${address.port}`;
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    process.env = savedEnv;
  });

  it.each([
    ['plain http', 'http://shop.example/hooks', /must use https in production/],
    ['a loopback address', 'https://127.0.0.1:8443/hooks', /loopback/],
    ['localhost', 'https://localhost/hooks', /loopback/],
    ['a private address', 'https://10.1.2.3/hooks', /private/],
    ['an IPv4-mapped private address', 'https://[::ffff:192.168.1.5]/hooks', /private/],
    ['the cloud metadata address', 'https://169.254.169.254/latest/meta-data', /link-local/],
    ['an IPv6 unique-local address', 'https://[fd00::1]/hooks', /private/],
  ])('refuses %s as an endpoint URL', async (_label, url, reason) => {
    const answer = await fetch(`${apiUrl}/v1/admin/webhook-endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url }),
    });
    expect(answer.status).toBe(400);
    const { error } = (await answer.json()) as { error: { errors: Problem[] } };
    expect(error.errors).toEqual([{ field: 'url', reason: expect.stringMatching(reason) }]);
  });
});
