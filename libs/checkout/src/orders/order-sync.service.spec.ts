import { GatewayAccounts, type GatewayClient, type TransactionLookup } from '@app/gateway-client';
import type { OrderEntity, OrderRepository } from '@app/persistence';
import type { OrderOutcomeService } from './order-outcome.service';
import { OrderSyncService } from './order-sync.service';

/** A gateway whose lookups the test finishes one by one; a database clock the test sets. */
function harness() {
  const answers: (() => void)[] = [];
  let asked = 0;
  let clock = new Date('2026-11-22T10:00:00.000Z');
  const gateway = {
    getTransactionStatus: () =>
      new Promise<TransactionLookup>((resolve) => {
        asked += 1;
        answers.push(() => resolve({ kind: 'not_found' } as TransactionLookup));
      }),
  } as unknown as GatewayClient;
  let clockReads = 0;
  const orders = {
    databaseNow: () => {
      clockReads += 1;
      return Promise.resolve(clock);
    },
  } as unknown as OrderRepository;
  const outcomes = {
    apply: () => Promise.resolve({ kind: 'order_missing' }),
  } as unknown as OrderOutcomeService;
  const sync = new OrderSyncService(GatewayAccounts.single(gateway), orders, outcomes);
  const order = { id: 'order-1', orderTrackingId: 'tracking-1' } as OrderEntity;
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return {
    sync,
    order,
    settle,
    lookups: () => asked,
    clockReads: () => clockReads,
    answerNext: async () => {
      answers.shift()?.();
      await settle();
    },
    at: (iso: string) => (clock = new Date(iso)),
  };
}

describe('OrderSyncService coalescing', () => {
  it('shares one follow-up among everything that arrives while a lookup is in flight', async () => {
    const h = harness();
    h.at('2026-11-22T10:00:01.000Z');
    const first = h.sync.begin(h.order, 'ipn');
    await h.settle();
    expect(first.startedAt?.toISOString()).toBe('2026-11-22T10:00:01.000Z');
    const second = h.sync.begin(h.order, 'ipn');
    const third = h.sync.begin(h.order, 'poll');
    expect(third).toBe(second);
    expect(h.lookups()).toBe(1);
    h.at('2026-11-22T10:00:05.000Z');
    await h.answerNext();
    expect(h.lookups()).toBe(2);
    expect(second.startedAt?.toISOString()).toBe('2026-11-22T10:00:05.000Z');
  });

  it('lets a notification join a lookup that started after it arrived, and no other', async () => {
    const h = harness();
    h.at('2026-11-22T10:00:01.000Z');
    h.sync.begin(h.order, 'ipn');
    await h.settle();
    // Arrived before the lookup in flight started: that lookup cannot answer it.
    expect(h.sync.covering(h.order.id, new Date('2026-11-22T10:00:00.500Z'))).toBeDefined();
    expect(h.sync.covering(h.order.id, new Date('2026-11-22T10:00:02.000Z'))).toBeUndefined();
    // Same millisecond: not provably later, so not joined.
    expect(h.sync.covering(h.order.id, new Date('2026-11-22T10:00:01.000Z'))).toBeUndefined();

    const followUp = h.sync.begin(h.order, 'ipn');
    // The follow-up has not started: it will see anything that arrived until now.
    expect(h.sync.covering(h.order.id, new Date('2026-11-22T10:00:02.000Z'))).toBe(followUp);

    h.at('2026-11-22T10:00:06.000Z');
    await h.answerNext();
    // The follow-up is now the lookup in flight; a notification from 10:00:03 is answered by it
    // (it started at 10:00:06) instead of chaining a third lookup behind it.
    expect(h.sync.covering(h.order.id, new Date('2026-11-22T10:00:03.000Z'))).toBe(followUp);
    expect(h.sync.covering(h.order.id, new Date('2026-11-22T10:00:07.000Z'))).toBeUndefined();
    await h.answerNext();
    await expect(followUp.done).resolves.toMatchObject({ result: { kind: 'order_missing' } });
    expect(h.sync.covering(h.order.id, new Date('2026-11-22T10:00:03.000Z'))).toBeUndefined();
    expect(h.lookups()).toBe(2);
  });

  it('takes a start time the caller has just read instead of asking the clock again', async () => {
    const h = harness();
    const readAt = new Date('2026-11-22T10:00:01.000Z');
    const first = h.sync.begin(h.order, 'ipn', readAt);
    expect(first.startedAt).toBe(readAt);
    expect(h.sync.covering(h.order.id, new Date('2026-11-22T10:00:00.900Z'))).toBe(first);
    // A follow-up starts later than anything the caller read: it asks the clock when it starts.
    const followUp = h.sync.begin(h.order, 'ipn', new Date('2026-11-22T10:00:02.000Z'));
    expect(followUp.phase).toBe('waiting');
    await h.settle();
    expect(h.clockReads()).toBe(0);
    h.at('2026-11-22T10:00:05.000Z');
    await h.answerNext();
    expect(h.clockReads()).toBe(1);
    expect(followUp.startedAt?.toISOString()).toBe('2026-11-22T10:00:05.000Z');
  });
});
