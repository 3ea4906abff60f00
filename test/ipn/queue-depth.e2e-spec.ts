import { Queue } from 'bullmq';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { JobProducer, queueConnectionFor, QUEUES } from '@app/queues';
import { HANDOVER_SECONDS } from '@app/checkout/ipn/inbox-channel';
import { RELAY_GATHER_MS } from '@app/checkout/ipn/worker/inbox-relay';
import { waitFor } from '../support/service';
import { workerSuiteForTests } from '../support/worker-suite';
import { inboxOfEach, notify, paidSilently, waitUntilSettled } from './ipn-support';

/**
 * The relay keeps at most NOTIFICATION_QUEUE_DEPTH verification jobs waiting in Redis; the rest
 * of a backlog waits (handed over in memory, then due in the inbox) and is queued as the workers
 * make room.
 */
describe('IPN inbox relay: a backlog longer than the queue depth waits in Postgres', () => {
  const depth = 3;
  // A database and queues of its own: the run's hold earlier suites' notifications, some of
  // them due again (unmatched retries), which the relay would queue first, filling the depth.
  const suite = workerSuiteForTests({
    ownDatabase: 'queue_depth',
    env: { NOTIFICATION_QUEUE_DEPTH: String(depth), POLL_SCHEDULE_SECONDS: '600' },
  });

  it('queues no more than the depth while the workers are paused, and the rest once they resume', async () => {
    const { service, dataSource } = suite;
    const jobs = service.workerApp!.get(JobProducer);
    const config = service.workerApp!.get<ServiceConfig>(SERVICE_CONFIG);
    // Paused for every worker (a worker-level pause may still take the job it was waiting for).
    const control = new Queue(QUEUES.notificationBatches, {
      connection: queueConnectionFor(config),
      prefix: config.queuePrefix,
    });
    const checkouts = await paidSilently(service, 8);
    await control.pause();
    try {
      for (const checkout of checkouts) {
        // Apart, so that each comes in a relay pass, and a job, of its own.
        await new Promise((resolve) => setTimeout(resolve, RELAY_GATHER_MS + 50));
        const ack = await notify(service, {
          trackingId: checkout.orderTrackingId,
          reference: checkout.reference,
        });
        expect(ack.status).toBe(200);
      }
      const statuses = async () =>
        (await inboxOfEach(dataSource, checkouts)).map((row) => row.status);
      await waitFor('the queue filled to its depth', async () =>
        (await jobs.waitingCount(QUEUES.notificationBatches)) === depth ? true : null,
      );
      // Several relay passes later (signals, timer, room checks) nothing more went to Redis, the
      // handed-over rows' handovers lapsing included (they come due and wait to be claimed).
      await new Promise((resolve) => setTimeout(resolve, (HANDOVER_SECONDS + 1.5) * 1000));
      expect(await jobs.waitingCount(QUEUES.notificationBatches)).toBe(depth);
      // Every row still open: the queued ones were handed over by the api's signal, unwritten.
      const held = await statuses();
      expect(held.filter((status) => status === 'received')).toHaveLength(8);
    } finally {
      await control.resume();
      await control.close();
    }
    await waitUntilSettled(dataSource, checkouts);
  }, 60_000);
});
