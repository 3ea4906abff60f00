import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { Job, Queue } from 'bullmq';
import { LookupThrottle } from '@app/checkout/ipn/worker/lookup-throttle';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createFastifyApp } from '@app/common';
import {
  jobOptions,
  JobRunner,
  queueConnectionFor,
  QueueName,
  QUEUES,
  RedisConnection,
  VerifyNotificationsData,
} from '@app/queues';
import { driverPool } from '@app/persistence';
import { waitFor } from '../support/service';
import { workerSuiteForTests } from '../support/worker-suite';
import {
  inboxOf,
  inboxOfEach,
  lookupsOf,
  notify,
  paidSilently,
  waitForStatus,
  waitUntilSettled,
} from './ipn-support';

const LOOKUPS_PER_SECOND = 4;
const ORDERS = 10;
const LOOKUP_INTERVAL_MS = 3000;

/**
 * Verification runs a batch of notifications per job: a burst costs the queue a few jobs, not
 * one per notification, each order is still looked up once, and the lookups' rate limit counts
 * lookups, not jobs (those beyond the second's limit are split off to wait for the next).
 */
describe('IPN verification in batches', () => {
  // Queues of their own: no earlier suite's rows due again in the batches counted here.
  const suite = workerSuiteForTests({
    ownDatabase: 'notification_batches',
    env: {
      GATEWAY_LOOKUPS_PER_SECOND: String(LOOKUPS_PER_SECOND),
      POLL_SCHEDULE_SECONDS: '600',
      // Long enough for a test to see a job that waits for it.
      ORDER_LOOKUP_INTERVAL_MS: String(LOOKUP_INTERVAL_MS),
    },
  });

  /** A queue of the suite's worker, to look into or feed as a test needs (closed by the test). */
  function queueOf<Data>(name: QueueName): Queue<Data> {
    const config = suite.service.workerApp!.get<ServiceConfig>(SERVICE_CONFIG);
    return new Queue<Data>(name, {
      connection: queueConnectionFor(config),
      prefix: config.queuePrefix,
    });
  }

  it('queues a burst as a few batches and looks each order up once, no more than the lookup rate a second', async () => {
    const { service, dataSource } = suite;
    const control = queueOf<VerifyNotificationsData>(QUEUES.notificationBatches);
    const checkouts = await paidSilently(service, ORDERS);
    await service.sandbox.control.resetRequests();
    let batches: Job<VerifyNotificationsData>[] = [];
    await control.pause();
    try {
      const acks = await Promise.all(
        checkouts.map((checkout) =>
          notify(service, { trackingId: checkout.orderTrackingId, reference: checkout.reference }),
        ),
      );
      expect(acks.map((ack) => ack.status)).toEqual(Array(ORDERS).fill(200));
      batches = await waitFor('every notification queued', async () => {
        const jobs = await control.getJobs(['waiting', 'paused' as 'waiting']);
        const queued = jobs.flatMap((job) => job.data.notifications);
        return queued.length === ORDERS ? jobs : null;
      });
    } finally {
      await control.resume();
    }
    try {
      // The relay gathers the api's signals: one job carries many notifications.
      expect(batches.length).toBeLessThanOrEqual(3);
      expect(
        batches.flatMap((job) => job.data.notifications.map((n) => n.notificationId)).sort(),
      ).toEqual((await inboxOfEach(dataSource, checkouts)).map((row) => row.id).sort());

      await waitUntilSettled(dataSource, checkouts);
      for (const checkout of checkouts) {
        expect(await lookupsOf(service, checkout.orderTrackingId)).toBe(1);
      }

      // Ten lookups at four a second: each window let four through, the rest waited for the
      // windows after it. A window counts its lookups when they are let through, and a loaded
      // machine may make them a moment later: the last of one window and the first of the next
      // can fall within one second, never more than two windows' worth.
      const { recent } = await service.sandbox.control.requests();
      const times = recent
        .filter((call) => call.operation === 'GetTransactionStatus')
        .map((call) => Date.parse(call.at))
        .sort((a, b) => a - b);
      expect(times).toHaveLength(ORDERS);
      const first = times[0];
      const busiestSecond = Math.max(
        ...times.map((start) => times.filter((at) => at >= start && at < start + 1000).length),
      );
      expect(busiestSecond).toBeLessThanOrEqual(2 * LOOKUPS_PER_SECOND);
      expect(times[ORDERS - 1] - first).toBeGreaterThanOrEqual(1500);
    } finally {
      await control.close();
    }
  }, 60_000);
  it("reserves the lookup interval of a batch's orders together, one command or statement for them all", async () => {
    const worker = suite.service.workerApp!;
    const throttle = worker.get(LookupThrottle);
    const interval = worker.get<ServiceConfig>(SERVICE_CONFIG).orderLookupIntervalMs;
    const redis = worker.get(RedisConnection).client;
    // What the reservations send to their store: Redis commands, or the driver's statements.
    const sent: string[] = [];
    const target = (redis ?? driverPool(worker.get(DataSource))) as unknown as Record<
      string,
      (...args: unknown[]) => unknown
    >;
    const method = redis ? 'sendCommand' : 'query';
    const original = target[method];
    target[method] = function (this: unknown, ...args: unknown[]) {
      // Only the reservations' own: the key names them in Redis, the statement's name in SQL.
      const first = args[0] as { name?: string; args?: unknown[] };
      const reserving = redis
        ? (first.args ?? []).some((arg) => String(arg).includes('lookup-throttle'))
        : first.name === 'lookup-reserve-many';
      if (reserving) sent.push(String(first.name));
      return original.apply(this, args);
    };
    try {
      const orders = Array.from({ length: 12 }, () => randomUUID());
      expect(await Promise.all(orders.map((order) => throttle.reserve(order)))).toEqual(
        Array(12).fill(0),
      );
      // The first goes at once, the eleven asked for meanwhile share the next.
      expect(sent.length).toBeGreaterThanOrEqual(1);
      expect(sent.length).toBeLessThanOrEqual(2);

      const again = await Promise.all(orders.map((order) => throttle.reserve(order)));
      for (const wait of again) {
        expect(wait).toBeGreaterThan(0);
        expect(wait).toBeLessThanOrEqual(interval);
      }
      // One order asked for twice at once: the second waits for the first's interval.
      const order = randomUUID();
      const [first, second] = await Promise.all([throttle.reserve(order), throttle.reserve(order)]);
      expect(first).toBe(0);
      expect(second).toBeGreaterThan(0);
    } finally {
      target[method] = original;
    }
  });

  it('splits a notification whose lookup failed off into a job of its own, retried while the rest of its batch is applied', async () => {
    const { service, dataSource } = suite;
    const control = queueOf<VerifyNotificationsData>(QUEUES.notificationBatches);
    const checkouts = await paidSilently(service, 3);
    const [failing, ...others] = checkouts;
    await service.sandbox.control.resetRequests();
    // Every try of the gateway client's own retries (3) fails, once: the job's next try succeeds.
    await service.sandbox.control.fault('GetTransactionStatus', 'http500', {
      times: 3,
      pathContains: failing.orderTrackingId,
    });
    try {
      await control.pause();
      await Promise.all(
        checkouts.map((checkout) =>
          notify(service, { trackingId: checkout.orderTrackingId, reference: checkout.reference }),
        ),
      );
      await waitFor('the three queued in one job', async () => {
        const jobs = await control.getJobs(['waiting', 'paused' as 'waiting']);
        const queued = jobs.flatMap((job) => job.data.notifications);
        return queued.length === 3 ? (jobs.length === 1 ? true : null) : null;
      });
      await control.resume();

      for (const checkout of others) {
        await waitForStatus(dataSource, checkout.reference, 'completed', 20_000);
      }
      const [row] = await inboxOf(dataSource, failing.orderTrackingId);
      // Its own job, waiting out the first retry's delay, with it alone.
      const split = await waitFor('the failed notification split off', async () => {
        const delayed = await control.getJobs(['delayed', 'waiting', 'active']);
        return delayed.find(
          (job) =>
            job.data.notifications.length === 1 &&
            job.data.notifications[0].notificationId === row.id,
        );
      });
      expect(split.id).toMatch(new RegExp(`^notification-${row.id}-`));
      await waitForStatus(dataSource, failing.reference, 'completed', 20_000);
      expect(await lookupsOf(service, failing.orderTrackingId)).toBe(4);
      for (const checkout of others) {
        expect(await lookupsOf(service, checkout.orderTrackingId)).toBe(1);
      }
    } finally {
      await service.sandbox.control.fault('GetTransactionStatus', 'none');
      await control.resume();
      await control.close();
    }
  }, 60_000);
  /**
   * Notifies the orders of `checkouts` in one job (the queue paused until it holds them), reserves
   * the lookup interval of those in `reserved` as a lookup of theirs just now would, and lets the
   * job run: that job, and the queue (for the test to look into and close).
   */
  async function batchAfterLookups(
    checkouts: { reference: string; orderTrackingId: string }[],
    reserved: { reference: string }[],
  ) {
    const { service, dataSource } = suite;
    const control = queueOf<VerifyNotificationsData>(QUEUES.notificationBatches);
    try {
      await control.pause();
      await Promise.all(
        checkouts.map((checkout) =>
          notify(service, { trackingId: checkout.orderTrackingId, reference: checkout.reference }),
        ),
      );
      const [batch] = await waitFor('the notifications queued in one job', async () => {
        const jobs = await control.getJobs(['waiting', 'paused' as 'waiting']);
        const queued = jobs.flatMap((job) => job.data.notifications);
        return queued.length === checkouts.length && jobs.length === 1 ? jobs : null;
      });
      const ids = (await dataSource.query(
        'SELECT id FROM orders WHERE merchant_reference = ANY($1)',
        [reserved.map((checkout) => checkout.reference)],
      )) as { id: string }[];
      const throttle = suite.service.workerApp!.get(LookupThrottle);
      for (const { id } of ids) expect(await throttle.reserve(id)).toBe(0);
      await control.resume();
      return { batch, control };
    } catch (error) {
      await control.resume();
      await control.close();
      throw error;
    }
  }

  /** The queue's unfinished jobs that hold any of these rows. */
  async function jobsHolding(control: Queue<VerifyNotificationsData>, rows: { id: string }[]) {
    const jobs = await control.getJobs(['delayed', 'waiting', 'active']);
    return jobs.filter((job) =>
      job.data.notifications.some((n) => rows.some((row) => row.id === n.notificationId)),
    );
  }

  it("puts the notifications of a batch that wait for their orders' lookup intervals together in one delayed job", async () => {
    const { service, dataSource } = suite;
    const checkouts = await paidSilently(service, 3);
    const [free, ...waiting] = checkouts;
    await service.sandbox.control.resetRequests();
    const { batch, control } = await batchAfterLookups(checkouts, waiting);
    try {
      await waitForStatus(dataSource, free.reference, 'completed', 20_000);
      const rows = await inboxOfEach(dataSource, waiting);
      const later = await waitFor('the waiting notifications split off', async () => {
        const holding = (await jobsHolding(control, rows)).filter((job) => job.id !== batch.id);
        return holding.length > 0 ? holding : null;
      });
      // One job for both, not one each.
      expect(later).toHaveLength(1);
      expect(later[0].data.notifications.map((n) => n.notificationId).sort()).toEqual(
        rows.map((row) => row.id).sort(),
      );
      // Added to wait out the intervals (at most one), not to run at once.
      expect(later[0].delay).toBeGreaterThan(0);
      expect(later[0].delay).toBeLessThanOrEqual(LOOKUP_INTERVAL_MS);
      for (const checkout of waiting) {
        await waitForStatus(dataSource, checkout.reference, 'completed', 20_000);
      }
      // Each order looked up once: the reservation stood for a lookup that was never sent.
      for (const checkout of checkouts) {
        expect(await lookupsOf(service, checkout.orderTrackingId)).toBe(1);
      }
    } finally {
      await control.close();
    }
  }, 60_000);

  it('delays the batch itself when every notification of it waits for its order', async () => {
    const { service, dataSource } = suite;
    const checkouts = await paidSilently(service, 2);
    await service.sandbox.control.resetRequests();
    const { batch, control } = await batchAfterLookups(checkouts, checkouts);
    try {
      await waitFor('the batch delayed', async () => (await batch.isDelayed()) || null);
      const rows = await inboxOfEach(dataSource, checkouts);
      expect((await jobsHolding(control, rows)).map((job) => job.id)).toEqual([batch.id]);
      for (const checkout of checkouts) {
        await waitForStatus(dataSource, checkout.reference, 'completed', 20_000);
        expect(await lookupsOf(service, checkout.orderTrackingId)).toBe(1);
      }
    } finally {
      await control.close();
    }
  }, 60_000);

  it("runs the previous release's one-notification jobs left on its queue when a worker starts", async () => {
    const { service, dataSource } = suite;
    const [checkout] = await paidSilently(service, 1);
    // A notification the previous release's relay claimed and queued (on its queue, the job it
    // queued): its lease far off, so only that job can apply it soon.
    const [row] = (await dataSource.query(
      `INSERT INTO ipn_notifications (order_tracking_id, merchant_reference, notification_type,
                                      http_method, payload, status, next_attempt_at)
       VALUES ($1, $2, 'IPNCHANGE', 'POST', '{}'::jsonb, 'queued', now() + interval '10 minutes')
       RETURNING id`,
      [checkout.orderTrackingId, checkout.reference],
    )) as { id: string }[];
    const legacy = queueOf(QUEUES.notifications);
    const data = { notificationId: row.id, orderKey: checkout.orderTrackingId, attempt: 0 };
    let nextRelease: NestFastifyApplication | undefined;
    try {
      await legacy.add('verify-notification', data, jobOptions('verify-notification', data));
      // The running worker started with that queue empty: it does not consume it.
      expect(service.workerApp!.get(JobRunner).worker(QUEUES.notifications)).toBeUndefined();
      const { WorkerModule } = await import('../../apps/worker/src/worker.module');
      nextRelease = await createFastifyApp(WorkerModule);
      await nextRelease.init();
      await waitForStatus(dataSource, checkout.reference, 'completed', 20_000);
      const [applied] = await inboxOf(dataSource, checkout.orderTrackingId);
      expect(applied.status).toBe('applied');
      expect(nextRelease.get(JobRunner).worker(QUEUES.notifications)).toBeDefined();
    } finally {
      await nextRelease?.close();
      await legacy.close();
    }
  }, 60_000);
});
