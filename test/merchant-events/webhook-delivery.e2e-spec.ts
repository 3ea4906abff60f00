import { MerchantEventType } from '@app/domain';
import { givenOrder } from '../support/builders';
import { pause, waitFor } from './webhook-harness';
import { WebhookReceiver } from './webhook-receiver';
import { bodyOf, webhookEndpointsSuite } from './webhook-endpoints-suite';

/** Delivery to the endpoints admins add and to ORDER_WEBHOOK_URL's: filters, order, concurrency. */
describe('merchant webhooks (Standard Webhooks): endpoints admins manage, delivery, operator tools', () => {
  const suite = webhookEndpointsSuite('webhook_delivery');
  const { harness, environmentSecret, endpointWithReceiver } = suite;
  let environmentReceiver: WebhookReceiver;
  beforeAll(() => {
    environmentReceiver = suite.environmentReceiver();
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
      // Written side by side: one after another, the twelve took longer to write than the
      // slow endpoint's timeout on a loaded machine, and the gap measured below with them.
      const events = await Promise.all(
        Array.from({ length: 12 }, () => harness.orderChanged('subscription.charged')),
      );
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
});
