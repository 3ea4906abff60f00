import { INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { ServiceConfigModule } from '@app/config';
import { OrderJournal, MerchantEventType } from '@app/checkout/orders/order-journal';
import { MerchantEventsWorkerModule } from '@app/checkout/merchant-events/worker/merchant-events-worker.module';
import {
  OrderEntity,
  OutboxEventEntity,
  PersistenceModule,
  WebhookDeliveryEntity,
} from '@app/persistence';
import { JobProducer, JobRunnerModule, QUEUES, QueueInfrastructureModule } from '@app/queues';
import { givenOrder } from '../support/builders';
import { itWithRedis } from '../support/redis-only';
import { openTestDataSource } from '../support/database';
import { currentTestRun } from '../support/test-servers';
import { TcpProxy } from '../foundation/tcp-proxy';
import { WebhookReceiver, startWebhookReceiver, verifySignature } from './webhook-receiver';

const NEW_SECRET = 'whsec_new_0c1d2e3f';
const OLD_SECRET = 'whsec_old_9a8b7c6d';
const ADMIN_KEY = 'admin_key_merchant_events';
const SHOP_KEY = 'shop_key_merchant_events';

@Module({
  imports: [
    ServiceConfigModule,
    PersistenceModule.forApp('worker'),
    QueueInfrastructureModule,
    JobRunnerModule,
    MerchantEventsWorkerModule,
  ],
})
class MerchantEventsWorkerUnderTest {}

async function bootWorker(): Promise<INestApplicationContext> {
  const worker = await NestFactory.createApplicationContext(MerchantEventsWorkerUnderTest, {
    logger: false,
  });
  await worker.init();
  return worker;
}

async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('merchant webhooks: outbox relay, signed delivery, retries, admin (real Postgres and Redis)', () => {
  const run = currentTestRun();
  // A database and queue prefix of our own: other suites' workers relay their own outbox only.
  const databaseName = `${run.databaseName}_merchant_events`;
  const adminUrl = run.adminDatabaseUrl;
  const savedEnv = { ...process.env };
  let receiver: WebhookReceiver;
  let dataSource: DataSource;
  let worker: INestApplicationContext | undefined;
  let api: NestFastifyApplication | undefined;
  let apiUrl: string;
  const journal = new OrderJournal();

  const outbox = () => dataSource.getRepository(OutboxEventEntity);
  const deliveriesOf = (eventId: string) =>
    dataSource
      .getRepository(WebhookDeliveryEntity)
      .find({ where: { eventId }, order: { attempt: 'ASC' } });

  /** A state change as the order services write it: the outbox row in the same transaction. */
  async function orderChanged(
    type: MerchantEventType,
    beforeCommit?: (order: OrderEntity) => void,
  ): Promise<{ order: OrderEntity; eventId: string }> {
    const order = await givenOrder(dataSource);
    beforeCommit?.(order);
    await dataSource.transaction((manager) => journal.announce(manager, order, type));
    const event = await outbox().findOneByOrFail({ orderId: order.id });
    return { order, eventId: event.id };
  }

  /** Stops the worker and starts another one on the environment given (and a fresh queue prefix). */
  async function restartWorker(env: Record<string, string | undefined>, prefix: string) {
    await worker?.close();
    worker = undefined;
    for (const [name, value] of Object.entries(env)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    process.env.QUEUE_PREFIX = `${run.queuePrefix}_${prefix}`;
    worker = await bootWorker();
  }

  const admin = (path: string, init: RequestInit = {}, key = ADMIN_KEY) =>
    fetch(`${apiUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, ...(init.headers ?? {}) },
    });

  beforeAll(async () => {
    const pg = new Client({ connectionString: adminUrl });
    await pg.connect();
    await pg.query(`CREATE DATABASE "${databaseName}"`);
    await pg.end();
    receiver = await startWebhookReceiver();
    Object.assign(process.env, {
      DATABASE_URL: adminUrl.replace(/\/postgres$/, `/${databaseName}`),
      QUEUE_PREFIX: `${run.queuePrefix}_mev`,
      ORDER_WEBHOOK_URL: receiver.url,
      ORDER_WEBHOOK_SECRET: `${NEW_SECRET},${OLD_SECRET}`,
      MERCHANT_WEBHOOK_BACKOFF_MS: '100',
      MERCHANT_WEBHOOK_TIMEOUT_MS: '1000',
      SWEEP_INTERVAL_MS: '200',
      ADMIN_API_KEYS: `ops:${ADMIN_KEY}`,
      SHOP_API_KEYS: SHOP_KEY,
    });
    worker = await bootWorker(); // runs the migrations on the new database
    dataSource = await openTestDataSource();
    const { createApiApp } = await import('../../apps/api/src/api-app');
    api = await createApiApp();
    await api.listen(0, '127.0.0.1');
    const address = api.getHttpServer().address();
    if (!address || typeof address === 'string') throw new Error('api did not bind a TCP port');
    apiUrl = `http://127.0.0.1:${address.port}`;
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await worker?.close();
    await dataSource?.destroy();
    await receiver?.close();
    process.env = savedEnv;
    const pg = new Client({ connectionString: adminUrl });
    await pg.connect();
    await pg.query(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`);
    await pg.end();
  });

  it('relays a committed outbox row and POSTs it signed with both rotation secrets', async () => {
    const { order, eventId } = await orderChanged('order.completed');
    const [delivery] = await waitFor('the webhook', async () => {
      const got = receiver.forEvent(eventId);
      return got.length > 0 && got;
    });

    expect(JSON.parse(delivery.body)).toEqual({
      id: eventId,
      type: 'order.completed',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      data: { order: expect.objectContaining({ reference: order.merchantReference }) },
    });
    expect(delivery.headers['content-type']).toBe('application/json');
    expect(delivery.headers['pesapal-checkout-event-type']).toBe('order.completed');
    const signature = String(delivery.headers['pesapal-checkout-signature']);
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(
      signature.startsWith(`t=${String(delivery.headers['pesapal-checkout-timestamp'])},`),
    ).toBe(true);
    // A shop that already moved to the new secret and one still on the old one both accept it.
    expect(verifySignature(signature, delivery.body, NEW_SECRET)).toBe(true);
    expect(verifySignature(signature, delivery.body, OLD_SECRET)).toBe(true);
    expect(verifySignature(signature, delivery.body, 'whsec_someone_else')).toBe(false);
    expect(verifySignature(signature, `${delivery.body} `, NEW_SECRET)).toBe(false);

    const row = await waitFor('delivered_at', async () => {
      const found = await outbox().findOneByOrFail({ id: eventId });
      return found.deliveredAt && found;
    });
    expect(row.relayedAt).not.toBeNull();
    expect(row.attempts).toBe(1);
    const attempts = await deliveriesOf(eventId);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ attempt: 1, responseStatus: 200, error: null });
    expect(attempts[0].url).toBe(receiver.url);
    expect(attempts[0].durationMs).toBeGreaterThanOrEqual(0);
  });

  it('retries a failing receiver with backoff, with the same event id and body every time', async () => {
    const { eventId } = await orderChanged('order.failed', (order) =>
      receiver.failFirst(order.merchantReference, 2),
    );
    await waitFor('the third attempt', async () => receiver.forEvent(eventId).length >= 3);
    await waitFor(
      'delivered_at',
      async () => (await outbox().findOneByOrFail({ id: eventId })).deliveredAt,
    );

    const got = receiver.forEvent(eventId);
    expect(got.map((r) => r.answered)).toEqual([503, 503, 200]);
    expect(new Set(got.map((r) => r.body)).size).toBe(1);
    expect(got.every((r) => JSON.parse(r.body).id === eventId)).toBe(true);
    expect(
      got.every((r) =>
        verifySignature(String(r.headers['pesapal-checkout-signature']), r.body, NEW_SECRET),
      ),
    ).toBe(true);

    const attempts = await deliveriesOf(eventId);
    expect(attempts.map((a) => [a.attempt, a.responseStatus])).toEqual([
      [1, 503],
      [2, 503],
      [3, 200],
    ]);
    expect(attempts[0].error).toContain('HTTP 503');
    expect(attempts[2].error).toBeNull();
    const row = await outbox().findOneByOrFail({ id: eventId });
    expect(row).toMatchObject({ attempts: 3, lastError: null });
  });

  it('delivers once when the relay queued a row but crashed before marking it relayed', async () => {
    const producer = worker!.get(JobProducer);
    const queue = producer.queue(QUEUES.merchantEvents);
    // The crashed relay's half: the job is on the queue, the row still says unrelayed.
    const order = await givenOrder(dataSource);
    const event = await outbox().save(
      outbox().create({
        orderId: order.id,
        type: 'order.cancelled',
        payload: { order: { reference: order.merchantReference } },
      }),
    );
    await producer.add('deliver-event', { eventId: event.id });
    await waitFor(
      'relayed_at',
      async () => (await outbox().findOneByOrFail({ id: event.id })).relayedAt,
    );
    await waitFor(
      'delivered_at',
      async () => (await outbox().findOneByOrFail({ id: event.id })).deliveredAt,
    );

    // And once more after the delivery: the mark is lost again, the relay queues it again.
    await outbox().update({ id: event.id }, { relayedAt: null });
    await waitFor(
      'relayed_at again',
      async () => (await outbox().findOneByOrFail({ id: event.id })).relayedAt,
    );
    await pause(1000);

    expect(receiver.forEvent(event.id)).toHaveLength(1);
    expect(await deliveriesOf(event.id)).toHaveLength(1);
    const jobs = (
      await queue.getJobs(['completed', 'active', 'waiting', 'delayed', 'failed'])
    ).filter((job) => (job.data as { eventId?: string }).eventId === event.id);
    expect(jobs.map((job) => job.id)).toEqual([`event-${event.id}`]);
  });

  it('lets an admin list events, read the attempts and redeliver with the same event id', async () => {
    const { order, eventId } = await orderChanged('order.reversed');
    await waitFor(
      'delivered_at',
      async () => (await outbox().findOneByOrFail({ id: eventId })).deliveredAt,
    );

    const listed = await admin(
      `/v1/admin/events?order=${encodeURIComponent(order.merchantReference)}&delivered=true`,
    );
    expect(listed.status).toBe(200);
    const page = (await listed.json()) as {
      data: { id: string; delivery_state: string; order_reference: string }[];
    };
    expect(page.data).toEqual([
      expect.objectContaining({
        id: eventId,
        delivery_state: 'delivered',
        order_reference: order.merchantReference,
      }),
    ]);
    const undelivered = (await (
      await admin(
        `/v1/admin/events?order=${encodeURIComponent(order.merchantReference)}&delivered=false`,
      )
    ).json()) as { data: unknown[] };
    expect(undelivered.data).toEqual([]);
    const byType = (await (await admin('/v1/admin/events?type=order.reversed')).json()) as {
      data: { type: string }[];
    };
    expect(byType.data.length).toBeGreaterThan(0);
    expect(byType.data.every((e) => e.type === 'order.reversed')).toBe(true);

    expect(
      (await admin(`/v1/admin/events/${eventId}/redeliver`, { method: 'POST' }, SHOP_KEY)).status,
    ).toBe(403);
    const redeliver = await admin(`/v1/admin/events/${eventId}/redeliver`, { method: 'POST' });
    expect(redeliver.status).toBe(202);
    expect(await redeliver.json()).toMatchObject({
      event_id: eventId,
      job_id: expect.stringMatching(new RegExp(`^event-${eventId}-redeliver-`)),
    });
    await waitFor('the redelivery', async () => receiver.forEvent(eventId).length === 2);
    const [first, second] = receiver.forEvent(eventId);
    expect(second.body).toBe(first.body);
    expect(second.headers['pesapal-checkout-event-id']).toBe(eventId);

    const history = await waitFor('two logged attempts', async () => {
      const body = (await (await admin(`/v1/admin/events/${eventId}/deliveries`)).json()) as {
        event: { id: string };
        data: { attempt: number; response_status: number }[];
      };
      return body.data.length === 2 && body;
    });
    expect(history.event.id).toBe(eventId);
    expect(history.data.map((d) => [d.attempt, d.response_status])).toEqual([
      [1, 200],
      [2, 200],
    ]);

    expect(
      (await admin('/v1/admin/events/00000000-0000-4000-8000-000000000000/deliveries')).status,
    ).toBe(404);
    expect((await admin('/v1/admin/events/not-an-id/redeliver', { method: 'POST' })).status).toBe(
      404,
    );
    expect((await admin('/v1/admin/events?delivered=maybe')).status).toBe(400);
  });

  it('gives up on a receiver that does not answer in time and retries it', async () => {
    const { eventId } = await orderChanged('order.expired', (order) =>
      receiver.hangFirst(order.merchantReference, 1),
    );
    await waitFor(
      'delivered_at',
      async () => (await outbox().findOneByOrFail({ id: eventId })).deliveredAt,
    );
    const attempts = await deliveriesOf(eventId);
    expect(attempts.map((a) => [a.responseStatus, a.error])).toEqual([
      [null, 'timed out after 1000 ms'],
      [200, null],
    ]);
    expect(attempts[0].durationMs).toBeGreaterThanOrEqual(900);
  });

  itWithRedis(
    'keeps rows unrelayed while Redis is down and relays them when it returns',
    async () => {
      const redis = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
      const proxy = new TcpProxy(redis.hostname, Number(redis.port || 6379));
      await proxy.open();
      try {
        await restartWorker({ REDIS_URL: `redis://127.0.0.1:${proxy.port}` }, 'mev_redis');
        await proxy.close();
        const { eventId } = await orderChanged('order.completed');
        await pause(2000);
        const waiting = await outbox().findOneByOrFail({ id: eventId });
        expect(waiting.relayedAt).toBeNull();
        expect(receiver.forEvent(eventId)).toHaveLength(0);

        await proxy.open();
        await waitFor(
          'delivery after Redis returns',
          async () => (await outbox().findOneByOrFail({ id: eventId })).deliveredAt,
          30_000,
        );
        expect(receiver.forEvent(eventId)).toHaveLength(1);
      } finally {
        await restartWorker({ REDIS_URL: redis.toString() }, 'mev_after_redis');
        await proxy.close();
      }
    },
    60_000,
  );

  it('marks events skipped, not lost, while no ORDER_WEBHOOK_URL is configured', async () => {
    await restartWorker({ ORDER_WEBHOOK_URL: undefined }, 'mev_nourl');

    const before = receiver.received.length;
    const { order, eventId } = await orderChanged('refund.accepted');
    const row = await waitFor('the skip', async () => {
      const found = await outbox().findOneByOrFail({ id: eventId });
      return found.lastError ? found : null;
    });
    expect(row.lastError).toMatch(/^skipped: ORDER_WEBHOOK_URL is not configured/);
    expect(row.deliveredAt).toBeNull();
    expect(row.relayedAt).not.toBeNull();
    expect(await deliveriesOf(eventId)).toHaveLength(0);
    expect(receiver.received.length).toBe(before);

    const listed = (await (
      await admin(
        `/v1/admin/events?order=${encodeURIComponent(order.merchantReference)}&delivered=false`,
      )
    ).json()) as { data: { id: string; delivery_state: string }[] };
    expect(listed.data).toEqual([
      expect.objectContaining({ id: eventId, delivery_state: 'skipped' }),
    ]);
  });
});
