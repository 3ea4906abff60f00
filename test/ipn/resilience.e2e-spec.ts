import { DataSource } from 'typeorm';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createFastifyApp } from '@app/common';
import { JobRunner, QUEUES } from '@app/queues';
import { openTestDataSource } from '../support/database';
import { RunningService, startService, waitFor } from '../support/service';
import {
  hostedCheckout,
  inboxOf,
  lookupsOf,
  RESILIENCE_ENV,
  transitionsOf,
  waitForStatus,
} from './ipn-support';

/** Losing Redis while notifications arrive: redis-outage.e2e-spec.ts. */
describe('IPN resilience: a worker dying mid-job', () => {
  let service: RunningService;
  let dataSource: DataSource;
  let secondWorker: NestFastifyApplication | undefined;

  beforeAll(async () => {
    service = await startService({
      worker: true,
      env: { ...RESILIENCE_ENV },
    });
    dataSource = await openTestDataSource();
  }, 60_000);
  afterAll(async () => {
    await secondWorker?.close();
    await service?.close();
    await dataSource?.destroy();
  });

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
      [QUEUES.notificationBatches, QUEUES.registration].map((queue) =>
        first.worker(queue)?.close(true),
      ),
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
