import { DataSource } from 'typeorm';
import { loadServiceConfig } from '@app/config';
import { OperationalRecordsPruner } from '@app/checkout/retention/worker/operational-records-pruner';
import { ownTestDatabase } from '../support/database';
import { SeedRows } from '../support/seed-rows';

/**
 * What retention removes and what it keeps, on a database of its own with no app running (a
 * worker would hand events to endpoints meanwhile): the pass itself, as the worker's job runs it.
 */
describe('retention rules (Postgres)', () => {
  let database: Awaited<ReturnType<typeof ownTestDatabase>>;
  let dataSource: DataSource;
  let seed: SeedRows;
  let pruner: OperationalRecordsPruner;

  beforeAll(async () => {
    database = await ownTestDatabase('retention_rules');
    dataSource = database.dataSource;
    seed = new SeedRows(dataSource);
    // Batches of 10 rows, so that the seeded rows take several and the pass must loop.
    pruner = new OperationalRecordsPruner(
      dataSource,
      loadServiceConfig({ RETENTION_BATCH_SIZE: '10' }),
    );
  });
  afterAll(async () => {
    await database?.drop();
  });

  const ids = async (sql: string): Promise<string[]> =>
    ((await dataSource.query(sql)) as { id: string }[]).map((row) => row.id).sort();
  const runPass = () => pruner.run({});

  it('removes only what is past its retention, and never the record', async () => {
    const endpoint = await seed.webhookEndpoint();
    const oldOrder = await seed.settledOrder({ ageDays: 400, withRefund: true });
    const newOrder = await seed.settledOrder({ ageDays: 1 });

    // Notifications: settled and old go (25 applied: three batches of ten); the rest stay.
    const settled = [];
    for (let i = 0; i < 25; i += 1) settled.push((await seed.notification('applied', 40)).id);
    settled.push((await seed.notification('ignored', 31)).id);
    const kept = [
      (await seed.notification('received', 90)).id,
      (await seed.notification('queued', 90)).id,
      (await seed.notification('unmatched', 90)).id,
      (await seed.notification('failed', 90)).id,
      (await seed.notification('applied', 29)).id,
      (await seed.notification('applied', 1, newOrder.id)).id,
    ];

    // Merchant events: handed over and old go with their messages and attempts.
    const gone = [
      (
        await seed.merchantEvent({
          ageDays: 45,
          relayed: true,
          endpointId: endpoint.id,
          messageState: 'delivered',
          deliveries: 2,
          orderId: oldOrder.id,
        })
      ).id,
      (
        await seed.merchantEvent({
          ageDays: 45,
          relayed: true,
          endpointId: endpoint.id,
          messageState: 'failed',
          deliveries: 15,
        })
      ).id,
      (await seed.merchantEvent({ ageDays: 45, relayed: true })).id,
    ];
    const stay = [
      // Still to be delivered: a pending message, or not yet handed to the endpoints.
      (
        await seed.merchantEvent({
          ageDays: 45,
          relayed: true,
          endpointId: endpoint.id,
          messageState: 'pending',
          deliveries: 3,
        })
      ).id,
      (await seed.merchantEvent({ ageDays: 45, relayed: false })).id,
      // Recent.
      (
        await seed.merchantEvent({
          ageDays: 2,
          relayed: true,
          endpointId: endpoint.id,
          messageState: 'delivered',
          deliveries: 1,
        })
      ).id,
    ];

    // The seeded orders' own merchant events: the old order's two go, the new order's stays.
    stay.push(...(await ids(`SELECT id FROM outbox_events WHERE order_id = '${newOrder.id}'`)));
    expect(
      await ids(`SELECT id FROM outbox_events WHERE order_id = '${oldOrder.id}'`),
    ).toHaveLength(3);

    const expiredKey = await seed.idempotencyKey(-48);
    const freshlyExpiredKey = await seed.idempotencyKey(-1);
    const liveKey = await seed.idempotencyKey(20);
    const lapsedWindow = await seed.rateLimitWindow(-300);
    const liveWindow = await seed.rateLimitWindow(30);
    await seed.lookupReservation(oldOrder.id, -300);
    await seed.lookupReservation(newOrder.id, 30);

    const record = async () => ({
      orders: await ids('SELECT id FROM orders'),
      events: await ids('SELECT id FROM order_events'),
      attempts: await ids('SELECT id FROM payment_attempts'),
      refunds: await ids('SELECT id FROM refunds'),
    });
    const recordBefore = await record();

    const removed = await runPass();
    expect(removed).toEqual({
      notifications: 26,
      merchant_events: 5,
      webhook_messages: 2,
      webhook_deliveries: 17,
      idempotency_keys: 1,
      rate_limit_windows: 1,
      lookup_reservations: 1,
      operator_sessions: 0,
    });

    expect(await ids('SELECT id FROM ipn_notifications')).toEqual([...kept].sort());
    expect(await ids('SELECT id FROM outbox_events')).toEqual([...stay].sort());
    expect(await ids(`SELECT event_id AS id FROM webhook_messages`)).toEqual(
      [stay[0], stay[2]].sort(),
    );
    const deliveries = (await dataSource.query(
      'SELECT event_id, count(*)::int AS n FROM webhook_deliveries GROUP BY event_id',
    )) as { event_id: string; n: number }[];
    expect(Object.fromEntries(deliveries.map((d) => [d.event_id, d.n]))).toEqual({
      [stay[0]]: 3,
      [stay[2]]: 1,
    });
    expect(gone.some((id) => deliveries.some((d) => d.event_id === id))).toBe(false);
    const keys = ((await dataSource.query('SELECT key FROM idempotency_keys')) as { key: string }[])
      .map((row) => row.key)
      .sort();
    expect(keys).toEqual([freshlyExpiredKey.key, liveKey.key].sort());
    expect(keys).not.toContain(expiredKey.key);
    const windows = (await dataSource.query('SELECT key FROM rate_limit_windows')) as {
      key: string;
    }[];
    expect(windows.map((w) => w.key)).toEqual([liveWindow.key]);
    expect(windows.map((w) => w.key)).not.toContain(lapsedWindow.key);
    expect(await ids('SELECT order_id AS id FROM lookup_reservations')).toEqual([newOrder.id]);

    // The merchant's record is untouched, however old.
    expect(await record()).toEqual(recordBefore);
    expect(recordBefore.orders).toEqual(expect.arrayContaining([oldOrder.id, newOrder.id]));

    // A second pass finds nothing more.
    expect(Object.values(await runPass()).every((count) => count === 0)).toBe(true);
  });
});
