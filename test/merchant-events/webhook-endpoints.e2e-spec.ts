import { MerchantEventType } from '@app/domain';
import { postWebhook } from '@app/checkout/merchant-events/worker/webhook-sender';
import { givenOrder } from '../support/builders';
import { WebhookHarness, newSecret, pause, waitFor } from './webhook-harness';
import { ReceivedWebhook, WebhookReceiver, startWebhookReceiver } from './webhook-receiver';
import { createApiUnderContract } from '../support/api-contract';

interface Problem {
  field: string;
  reason: string;
}

/** Short retries so a test sees a schedule run; the real default spans about three days. */
const RETRY_SCHEDULE = Array.from({ length: 30 }, () => '200ms').join(',');

describe('merchant webhooks (Standard Webhooks): endpoints admins manage, delivery, operator tools', () => {
  const environmentSecret = newSecret();
  let environmentReceiver: WebhookReceiver;
  const receivers: WebhookReceiver[] = [];
  const harness = new WebhookHarness('webhook_endpoints', {
    WEBHOOK_RETRY_SCHEDULE: RETRY_SCHEDULE,
    WEBHOOK_TIMEOUT_MS: '1000',
  });

  async function receiver(secrets: string[] = []): Promise<WebhookReceiver> {
    const started = await startWebhookReceiver(secrets);
    receivers.push(started);
    return started;
  }

  /** An endpoint with a receiver holding its secret; removed again by the test's end. */
  async function endpointWithReceiver(body: Record<string, unknown> = {}) {
    const got = await receiver();
    const endpoint = await harness.createEndpoint({ url: got.url, ...body });
    got.secrets.push(endpoint.secret);
    return { endpoint, receiver: got };
  }

  interface SentBody {
    type: string;
    timestamp: string;
    data: { endpoint?: { id?: string; url?: string }; order?: unknown; reason?: string };
  }
  const bodyOf = (received: ReceivedWebhook) => JSON.parse(received.body) as SentBody;

  beforeAll(async () => {
    environmentReceiver = await startWebhookReceiver([environmentSecret]);
    Object.assign(process.env, {
      ORDER_WEBHOOK_URL: `${environmentReceiver.url}?token=kept-out-of-views`,
      ORDER_WEBHOOK_SECRET: environmentSecret,
    });
    await harness.start();
  }, 60_000);

  afterAll(async () => {
    await harness.stop();
    for (const started of [environmentReceiver, ...receivers]) await started?.close();
  });

  it('keeps ORDER_WEBHOOK_URL as an endpoint of its own, shown without its query string', async () => {
    const listed = (await (await harness.admin('/v1/admin/webhook-endpoints')).json()) as {
      data: Record<string, unknown>[];
    };
    const environment = listed.data.filter((e) => e.source === 'environment');
    expect(environment).toEqual([
      expect.objectContaining({
        url: environmentReceiver.url,
        event_types: null,
        state: 'enabled',
      }),
    ]);
    expect(JSON.stringify(listed)).not.toContain('kept-out-of-views');
    expect(JSON.stringify(listed)).not.toContain(environmentSecret);
  });

  it('delivers a completed order to two endpoints with different filters exactly as filtered', async () => {
    const completedOnly = await endpointWithReceiver({
      event_types: ['order.completed'],
      description: 'fulfilment',
    });
    const refundsAndFailures = await endpointWithReceiver({
      event_types: ['refund.accepted', 'order.failed'],
    });
    try {
      const completed = await harness.orderChanged('order.completed');
      const refund = await harness.orderChanged('refund.accepted');
      const cancelled = await harness.orderChanged('order.cancelled');
      const all = [completed.eventId, refund.eventId, cancelled.eventId];

      await waitFor('the environment endpoint to get all three', () =>
        all.every((id) => environmentReceiver.forEvent(id).length === 1),
      );
      await waitFor(
        'both filtered endpoints',
        () =>
          completedOnly.receiver.forEvent(completed.eventId).length === 1 &&
          refundsAndFailures.receiver.forEvent(refund.eventId).length === 1,
      );
      await pause(600); // several dispatcher rounds: nothing more may come

      expect(completedOnly.receiver.received.map((r) => r.eventId)).toEqual([completed.eventId]);
      expect(refundsAndFailures.receiver.received.map((r) => r.eventId)).toEqual([refund.eventId]);

      const [delivery] = completedOnly.receiver.received;
      // The official library verified it with this endpoint's secret and no other.
      expect(delivery.verifiedWith).toEqual([completedOnly.endpoint.secret]);
      expect(refundsAndFailures.receiver.received[0].verifiedWith).toEqual([
        refundsAndFailures.endpoint.secret,
      ]);
      expect(delivery.headers['webhook-id']).toBe(completed.eventId);
      expect(String(delivery.headers['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(
        Math.abs(Number(delivery.headers['webhook-timestamp']) - Date.now() / 1000),
      ).toBeLessThan(60);
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(bodyOf(delivery)).toEqual({
        type: 'order.completed',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/),
        data: {
          order: expect.objectContaining({ reference: completed.order.merchantReference }),
        },
      });
      // Every endpoint receives the same bytes under the same id.
      expect(environmentReceiver.forEvent(completed.eventId)[0].body).toBe(delivery.body);
      expect(environmentReceiver.forEvent(completed.eventId)[0].verifiedWith).toEqual([
        environmentSecret,
      ]);
    } finally {
      await harness.deleteEndpoint(completedOnly.endpoint.id);
      await harness.deleteEndpoint(refundsAndFailures.endpoint.id);
    }
  });

  it('signs with both secrets during a rotation, and with the new one only once the overlap ends', async () => {
    const { endpoint, receiver: shop } = await endpointWithReceiver({
      event_types: ['order.expired'],
    });
    const original = endpoint.secret;
    try {
      const first = await harness.orderChanged('order.expired');
      await waitFor('the first delivery', () => shop.forEvent(first.eventId).length === 1);
      expect(shop.forEvent(first.eventId)[0].verifiedWith).toEqual([original]);

      const rotated = await harness.admin(
        `/v1/admin/webhook-endpoints/${endpoint.id}/rotate-secret`,
        {
          method: 'POST',
          body: {},
        },
      );
      expect(rotated.status).toBe(201);
      const { secret: next, previous_secret_expires_at } = (await rotated.json()) as {
        secret: string;
        previous_secret_expires_at: string;
      };
      expect(next).toMatch(/^whsec_[A-Za-z0-9+/]{40,}={0,2}$/);
      expect(next).not.toBe(original);
      // The default overlap: a day for the shop to move its receivers over.
      expect(new Date(previous_secret_expires_at).getTime() - Date.now()).toBeGreaterThan(
        23 * 3_600_000,
      );
      shop.secrets.push(next);

      const during = await harness.orderChanged('order.expired');
      await waitFor(
        'the delivery during the overlap',
        () => shop.forEvent(during.eventId).length === 1,
      );
      const signed = shop.forEvent(during.eventId)[0];
      expect(String(signed.headers['webhook-signature']).split(' ')).toHaveLength(2);
      // A receiver still on the old secret and one already on the new both verify it.
      expect(signed.verifiedWith.sort()).toEqual([original, next].sort());

      const ended = await harness.admin(
        `/v1/admin/webhook-endpoints/${endpoint.id}/rotate-secret`,
        {
          method: 'POST',
          body: { overlap_seconds: 0 },
        },
      );
      const { secret: latest } = (await ended.json()) as { secret: string };
      shop.secrets.push(latest);
      expect((await harness.endpointState(endpoint.id)) as unknown).toMatchObject({
        previous_secret_expires_at: null,
      });

      const after = await harness.orderChanged('order.expired');
      await waitFor(
        'the delivery after the rotation',
        () => shop.forEvent(after.eventId).length === 1,
      );
      const last = shop.forEvent(after.eventId)[0];
      expect(String(last.headers['webhook-signature']).split(' ')).toHaveLength(1);
      expect(last.verifiedWith).toEqual([latest]);
      // The secret is never shown again.
      const shown = await (
        await harness.admin(`/v1/admin/webhook-endpoints/${endpoint.id}`)
      ).text();
      for (const secret of [original, next, latest]) expect(shown).not.toContain(secret);
    } finally {
      await harness.deleteEndpoint(endpoint.id);
    }
  });

  it('disables an endpoint that answers 410, tells the other endpoints, and delivers once re-enabled', async () => {
    const { endpoint, receiver: gone } = await endpointWithReceiver({
      event_types: ['order.review_required'],
    });
    try {
      gone.answer = () => ({ status: 410 });
      const first = await harness.orderChanged('order.review_required');
      const disabled = await waitFor('the endpoint disabled', async () => {
        const state = await harness.endpointState(endpoint.id);
        return state.state === 'disabled' && state;
      });
      expect(disabled.disabled_reason).toMatch(/410/);
      expect(gone.forEvent(first.eventId)).toHaveLength(1);

      const notice = await waitFor('the webhook_endpoint.disabled event', () =>
        environmentReceiver.received.find(
          (r) =>
            r.type === 'webhook_endpoint.disabled' && bodyOf(r).data.endpoint?.id === endpoint.id,
        ),
      );
      expect(notice.verifiedWith).toEqual([environmentSecret]);
      expect(bodyOf(notice).data).toMatchObject({
        endpoint: { id: endpoint.id, url: gone.url },
        reason: expect.stringMatching(/410/),
      });

      // While disabled it is handed nothing new.
      const whileDisabled = await harness.orderChanged('order.review_required');
      await waitFor(
        'the environment endpoint to get it',
        () => environmentReceiver.forEvent(whileDisabled.eventId).length === 1,
      );
      await pause(500);
      expect(gone.forEvent(whileDisabled.eventId)).toHaveLength(0);

      // Enabled again, it gets the event it answered 410 to, under the same id.
      gone.answer = () => ({ status: 200 });
      const enabled = await harness.admin(`/v1/admin/webhook-endpoints/${endpoint.id}`, {
        method: 'PATCH',
        body: { enabled: true },
      });
      expect(enabled.status).toBe(200);
      expect(await enabled.json()).toMatchObject({ state: 'enabled', disabled_reason: null });
      await waitFor('the held event', () => gone.forEvent(first.eventId).length === 2);
      expect(gone.forEvent(first.eventId)[1].body).toBe(gone.forEvent(first.eventId)[0].body);

      // What it missed while disabled comes with a replay.
      const replay = await harness.admin(`/v1/admin/webhook-endpoints/${endpoint.id}/replay`, {
        method: 'POST',
        body: { since: (await harness.outbox(whileDisabled.eventId)).createdAt.toISOString() },
      });
      expect(replay.status).toBe(202);
      expect(await replay.json()).toEqual({ queued: 1 });
      await waitFor('the replayed event', () => gone.forEvent(whileDisabled.eventId).length === 1);
      await pause(500);
      expect(gone.delivered().map((r) => r.eventId)).toEqual([
        first.eventId,
        whileDisabled.eventId,
      ]);
    } finally {
      await harness.deleteEndpoint(endpoint.id);
    }
  });

  it('waits as long as a 429 or 503 asks in Retry-After before trying again', async () => {
    const { endpoint, receiver: busy } = await endpointWithReceiver({
      event_types: ['refund.rejected'],
    });
    try {
      busy.answer = (_request, index) =>
        index === 0
          ? { status: 429, headers: { 'retry-after': '2' }, body: 'slow down' }
          : index === 1
            ? { status: 503, headers: { 'retry-after': '1' } }
            : { status: 200, body: 'thanks' };
      const { eventId } = await harness.orderChanged('refund.rejected');
      await waitFor('the third attempt', () => busy.delivered().length === 1, 20_000);

      const [limited, unavailable, delivered] = busy.forEvent(eventId);
      // The schedule says 200 ms; the receiver asked for 2 s, then 1 s.
      expect(unavailable.at - limited.at).toBeGreaterThanOrEqual(2000);
      expect(delivered.at - unavailable.at).toBeGreaterThanOrEqual(1000);
      expect(new Set(busy.forEvent(eventId).map((r) => r.body)).size).toBe(1);

      const history = await waitFor('three recorded attempts', async () => {
        const answer = (await (
          await harness.admin(`/v1/admin/events/${eventId}/deliveries`)
        ).json()) as {
          endpoints: { endpoint_id: string; state: string; attempts: number }[];
          data: {
            endpoint_id: string;
            attempt: number;
            response_status: number;
            response_excerpt: string | null;
            duration_ms: number;
          }[];
        };
        const mine = answer.data.filter((d) => d.endpoint_id === endpoint.id);
        return mine.length === 3 && { ...answer, mine };
      });
      expect(history.mine.map((d) => [d.attempt, d.response_status, d.response_excerpt])).toEqual([
        [1, 429, 'slow down'],
        [2, 503, 'not now'],
        [3, 200, 'thanks'],
      ]);
      expect(history.mine.every((d) => d.duration_ms >= 0)).toBe(true);
      expect(history.endpoints).toContainEqual(
        expect.objectContaining({ endpoint_id: endpoint.id, state: 'delivered', attempts: 3 }),
      );

      // An operator sends it again to this endpoint alone: same id, same bytes.
      const environmentCopies = environmentReceiver.forEvent(eventId).length;
      const redeliver = await harness.admin(`/v1/admin/events/${eventId}/redeliver`, {
        method: 'POST',
        body: { endpoint_id: endpoint.id },
      });
      expect(redeliver.status).toBe(202);
      expect(await redeliver.json()).toEqual({ event_id: eventId, endpoints: [endpoint.id] });
      await waitFor('the redelivery', () => busy.forEvent(eventId).length === 4);
      expect(busy.forEvent(eventId)[3]).toMatchObject({ body: delivered.body, answered: 200 });
      await pause(500);
      expect(environmentReceiver.forEvent(eventId)).toHaveLength(environmentCopies);
    } finally {
      await harness.deleteEndpoint(endpoint.id);
    }
  });

  it('gets a receiver that was down every event, in order per order, and none twice after a 2xx', async () => {
    const { endpoint, receiver: shop } = await endpointWithReceiver({
      event_types: ['order.completed', 'refund.accepted', 'refund.reversed'],
    });
    try {
      let up = false;
      shop.answer = () => (up ? { status: 200 } : { status: 500 });
      const sequence: MerchantEventType[] = [
        'order.completed',
        'refund.accepted',
        'refund.reversed',
      ];
      const orders = await Promise.all([1, 2, 3].map(() => givenOrder(harness.dataSource)));
      const expected = new Map<string, string[]>();
      for (const type of sequence) {
        for (const order of orders) {
          const { eventId } = await harness.orderChanged(type, order);
          expected.set(order.merchantReference, [
            ...(expected.get(order.merchantReference) ?? []),
            eventId,
          ]);
        }
      }
      await waitFor('failed attempts while down', () => shop.received.length >= 6);
      await pause(1000);
      up = true;
      const everyEvent = [...expected.values()].flat();
      await waitFor(
        'every event delivered',
        () => everyEvent.every((id) => shop.forEvent(id).some((r) => r.answered === 200)),
        20_000,
      );
      await pause(800); // several rounds: nothing may come twice

      // While down, only each order's first event was tried: the later ones waited behind it.
      const beforeUp = shop.received.filter((r) => r.answered === 500);
      const firsts = new Set([...expected.values()].map((ids) => ids[0]));
      expect(beforeUp.every((r) => firsts.has(r.eventId))).toBe(true);

      for (const [reference, ids] of expected) {
        const deliveredInOrder = shop
          .delivered()
          .filter((r) => r.orderReference === reference)
          .map((r) => r.eventId);
        expect(deliveredInOrder).toEqual(ids);
      }
      for (const id of everyEvent) {
        const attempts = shop.forEvent(id);
        expect(attempts.filter((r) => r.answered === 200)).toHaveLength(1);
        expect(attempts[attempts.length - 1].answered).toBe(200);
        expect(new Set(attempts.map((r) => r.body)).size).toBe(1);
        expect(attempts.every((r) => r.verifiedWith.length === 1)).toBe(true);
      }
    } finally {
      await harness.deleteEndpoint(endpoint.id);
    }
  });

  it('keeps delivering to one endpoint while another hangs', async () => {
    const slow = await endpointWithReceiver({ event_types: ['subscription.charged'] });
    const fast = await endpointWithReceiver({ event_types: ['subscription.charged'] });
    try {
      slow.receiver.answer = () => 'hang';
      const events: { eventId: string }[] = [];
      for (let i = 0; i < 12; i += 1)
        events.push(await harness.orderChanged('subscription.charged'));
      await waitFor('the fast endpoint to get all twelve', () =>
        events.every((e) => fast.receiver.forEvent(e.eventId).length === 1),
      );
      const lastFast = Math.max(...fast.receiver.received.map((r) => r.at));
      const firstSlow = Math.min(...slow.receiver.received.map((r) => r.at));
      // All twelve arrived before the slow endpoint's first attempt had even timed out (1 s).
      expect(lastFast - firstSlow).toBeLessThan(1000);
      // The hanging endpoint holds at most its own share of requests at once.
      expect(slow.receiver.received.length).toBeLessThanOrEqual(8);
    } finally {
      await harness.deleteEndpoint(slow.endpoint.id);
      await harness.deleteEndpoint(fast.endpoint.id);
    }
  });

  it('delivers each event once with two workers claiming side by side', async () => {
    const { endpoint, receiver: shop } = await endpointWithReceiver({
      event_types: ['order.failed'],
    });
    const second = await harness.startWorker();
    try {
      const events = await Promise.all(
        Array.from({ length: 40 }, () => harness.orderChanged('order.failed')),
      );
      await waitFor(
        'all forty',
        () => events.every((e) => shop.forEvent(e.eventId).length >= 1),
        20_000,
      );
      await pause(800);
      expect(shop.received).toHaveLength(40);
      expect(new Set(shop.received.map((r) => r.eventId)).size).toBe(40);
    } finally {
      await second.close();
      harness.workers.splice(harness.workers.indexOf(second), 1);
      await harness.deleteEndpoint(endpoint.id);
    }
  });

  it('disables an endpoint that has failed for WEBHOOK_DISABLE_AFTER and says so', async () => {
    await harness.restartWorker({ WEBHOOK_DISABLE_AFTER: '1s' });
    const { endpoint, receiver: broken } = await endpointWithReceiver({
      event_types: ['refund.reversed'],
    });
    try {
      broken.answer = () => ({ status: 500 });
      await harness.orderChanged('refund.reversed');
      const state = await waitFor('the endpoint disabled', async () => {
        const seen = await harness.endpointState(endpoint.id);
        return seen.state === 'disabled' && seen;
      });
      expect(state.disabled_reason).toMatch(/^no delivery succeeded since \d{4}-/);
      expect(broken.received.length).toBeGreaterThanOrEqual(3);
      await waitFor('the webhook_endpoint.disabled event', () =>
        environmentReceiver.received.some(
          (r) =>
            r.type === 'webhook_endpoint.disabled' && bodyOf(r).data.endpoint?.id === endpoint.id,
        ),
      );
      // A test event is refused while it is disabled.
      const test = await harness.admin(`/v1/admin/webhook-endpoints/${endpoint.id}/test`, {
        method: 'POST',
      });
      expect(test.status).toBe(409);
    } finally {
      await harness.restartWorker({ WEBHOOK_DISABLE_AFTER: undefined });
      await harness.deleteEndpoint(endpoint.id);
    }
  });

  it('sends a test event to one endpoint only, and records it', async () => {
    const target = await endpointWithReceiver({ event_types: ['order.completed'] });
    const bystander = await endpointWithReceiver();
    try {
      const sent = await harness.admin(`/v1/admin/webhook-endpoints/${target.endpoint.id}/test`, {
        method: 'POST',
      });
      expect(sent.status).toBe(202);
      const { event_id } = (await sent.json()) as { event_id: string };
      const [test] = await waitFor('the test event', () =>
        target.receiver.forEvent(event_id).length > 0 ? target.receiver.forEvent(event_id) : null,
      );
      expect(test.type).toBe('webhook.test');
      expect(test.verifiedWith).toEqual([target.endpoint.secret]);
      expect(bodyOf(test).data.endpoint).toEqual({ id: target.endpoint.id });
      await pause(500);
      expect(bystander.receiver.forEvent(event_id)).toHaveLength(0);
      expect(environmentReceiver.forEvent(event_id)).toHaveLength(0);
    } finally {
      await harness.deleteEndpoint(target.endpoint.id);
      await harness.deleteEndpoint(bystander.endpoint.id);
    }
  });

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

  it('marks events skipped as they are written when no endpoint subscribes, and replays them to one added later', async () => {
    await harness.restartWorker({ ORDER_WEBHOOK_URL: undefined });
    try {
      const { order, eventId } = await harness.orderChanged('order.cancelled');
      const skipped = await waitFor('the skip', async () => {
        const row = await harness.outbox(eventId);
        return row.lastError ? row : null;
      });
      expect(skipped.lastError).toMatch(/^skipped: no enabled webhook endpoint subscribes to/);
      // Skipped as it was written (in the change's own transaction), not by a later fan-out.
      expect((skipped.relayedAt as Date).getTime()).toBeLessThanOrEqual(
        skipped.createdAt.getTime(),
      );
      const listed = (await (
        await harness.admin(`/v1/admin/events?order=${encodeURIComponent(order.merchantReference)}`)
      ).json()) as { data: { id: string; delivery_state: string }[] };
      expect(listed.data).toEqual([
        expect.objectContaining({ id: eventId, delivery_state: 'skipped' }),
      ]);

      const { endpoint, receiver: late } = await endpointWithReceiver();
      try {
        const replay = await harness.admin(`/v1/admin/webhook-endpoints/${endpoint.id}/replay`, {
          method: 'POST',
          body: { since: skipped.createdAt.toISOString() },
        });
        expect(replay.status).toBe(202);
        await waitFor('the replayed event', () => late.forEvent(eventId).length === 1);
        await waitFor('delivered', async () => (await harness.outbox(eventId)).deliveredAt);
        expect(environmentReceiver.forEvent(eventId)).toHaveLength(0);
      } finally {
        await harness.deleteEndpoint(endpoint.id);
      }
    } finally {
      await harness.restartWorker({ ORDER_WEBHOOK_URL: process.env.ORDER_WEBHOOK_URL });
    }
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
