import { pause, waitFor } from './webhook-harness';
import { WebhookReceiver } from './webhook-receiver';
import { bodyOf, webhookEndpointsSuite } from './webhook-endpoints-suite';

/** Endpoints that fail: disabled (and said so), Retry-After kept, an operator's redelivery. */
describe('merchant webhooks (Standard Webhooks): endpoints admins manage, delivery, operator tools', () => {
  const suite = webhookEndpointsSuite('webhook_failing');
  const { harness, environmentSecret, endpointWithReceiver } = suite;
  let environmentReceiver: WebhookReceiver;
  beforeAll(() => {
    environmentReceiver = suite.environmentReceiver();
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
});
