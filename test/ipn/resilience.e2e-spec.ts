import { itWithRedis } from '../support/redis-only';
import { DataSource } from 'typeorm';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createFastifyApp } from '@app/common';
import { JobRunner, QUEUES } from '@app/queues';
import { openTestDataSource } from '../support/database';
import { RunningService, startService, waitFor } from '../support/service';
import { TcpProxy } from '../foundation/tcp-proxy';
import {
  hostedCheckout,
  inboxOf,
  lookupsOf,
  notify,
  paidSilently,
  transitionsOf,
  waitForStatus,
} from './ipn-support';

describe('IPN resilience: a worker dying mid-job, Redis lost while notifications arrive', () => {
  let service: RunningService;
  let dataSource: DataSource;
  let redis: TcpProxy;
  let secondWorker: NestFastifyApplication | undefined;

  beforeAll(async () => {
    const target = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    redis = new TcpProxy(target.hostname, Number(target.port || 6379));
    await redis.open();
    service = await startService({
      worker: true,
      env: {
        // Both apps reach Redis only through the proxy the test can cut.
        REDIS_URL: `redis://127.0.0.1:${redis.port}`,
        POLL_SCHEDULE_SECONDS: '600',
        JOB_LOCK_MS: '1500',
        SWEEP_INTERVAL_MS: '300',
      },
    });
    dataSource = await openTestDataSource();
  }, 60_000);
  afterAll(async () => {
    await secondWorker?.close();
    await service?.close();
    await redis?.close();
    await dataSource?.destroy();
  });

  itWithRedis(
    'loses nothing when Redis is down while notifications arrive, and applies them once it returns',
    async () => {
      const checkouts = await paidSilently(service, 3);
      await redis.close();
      try {
        for (const checkout of checkouts) {
          const started = Date.now();
          const ack = await notify(service, {
            trackingId: checkout.orderTrackingId,
            reference: checkout.reference,
          });
          expect(ack.status).toBe(200);
          expect(ack.body.status).toBe(200);
          expect(Date.now() - started).toBeLessThan(5000);
          const [row] = await inboxOf(dataSource, checkout.orderTrackingId);
          expect(row.status).toBe('received');
        }
        await new Promise((resolve) => setTimeout(resolve, 1000));
        for (const checkout of checkouts) {
          const [row] = await inboxOf(dataSource, checkout.orderTrackingId);
          expect(row.status).toBe('received');
        }
      } finally {
        await redis.open();
      }
      for (const checkout of checkouts) {
        const order = await waitForStatus(dataSource, checkout.reference, 'completed', 30_000);
        expect(await transitionsOf(dataSource, order.id)).toEqual(['pending->completed']);
        await waitFor('row applied', async () => {
          const [row] = await inboxOf(dataSource, checkout.orderTrackingId);
          return row.status === 'applied';
        });
      }
    },
    60_000,
  );

  it('picks a job up again after its worker died mid-lookup and applies the result once', async () => {
    await service.sandbox.control.notifications('deliver');
    const checkout = await hostedCheckout(service);
    await service.sandbox.control.resetRequests();
    // The first lookup hangs: the worker holding it "dies" meanwhile. The hang is long enough for
    // the takeover (lock expiry, stalled check, a second worker starting) on a loaded CI machine.
    const hangMs = 20_000;
    const hung = Date.now();
    await service.sandbox.control.fault('GetTransactionStatus', 'slow', {
      delayMs: hangMs,
      times: 1,
      pathContains: checkout.orderTrackingId,
    });
    await service.sandbox.control.settle(checkout.orderTrackingId, 'completed', 'card');
    await waitFor(
      'the lookup in flight',
      async () => (await lookupsOf(service, checkout.orderTrackingId)) >= 1,
    );
    const first = service.workerApp!.get(JobRunner);
    // Stop consuming without finishing the job: its lock lapses as if the process had died.
    await Promise.all(
      [QUEUES.notifications, QUEUES.registration].map((queue) => first.worker(queue)?.close(true)),
    );

    const { WorkerModule } = await import('../../apps/worker/src/worker.module');
    secondWorker = await createFastifyApp(WorkerModule);
    await secondWorker.init();

    // Completed before the hanging lookup could answer: the second worker took the job over.
    const order = await waitForStatus(
      dataSource,
      checkout.reference,
      'completed',
      hung + hangMs - 1000 - Date.now(),
    );
    expect(await lookupsOf(service, checkout.orderTrackingId)).toBeGreaterThanOrEqual(2);
    // Let the abandoned lookup answer too: it must not apply anything a second time.
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, hung + hangMs + 1000 - Date.now())),
    );
    expect(await transitionsOf(dataSource, order.id)).toEqual(['pending->completed']);
    const [row] = await inboxOf(dataSource, checkout.orderTrackingId);
    expect(row.status).toBe('applied');
  }, 60_000);
});
