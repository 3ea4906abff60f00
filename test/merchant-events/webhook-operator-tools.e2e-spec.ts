import { pause, waitFor } from './webhook-harness';
import { WebhookReceiver } from './webhook-receiver';
import { bodyOf, webhookEndpointsSuite } from './webhook-endpoints-suite';

/** What an operator does to an endpoint: rotate its secret, send it a test event, replay to it. */
describe('merchant webhooks (Standard Webhooks): endpoints admins manage, delivery, operator tools', () => {
  const suite = webhookEndpointsSuite('webhook_tools');
  const { harness, endpointWithReceiver } = suite;
  let environmentReceiver: WebhookReceiver;
  beforeAll(() => {
    environmentReceiver = suite.environmentReceiver();
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
