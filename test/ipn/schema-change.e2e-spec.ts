import { DataSource } from 'typeorm';
import { NotificationVerifier } from '@app/checkout/ipn/worker/notification-verifier';
import { openTestDataSource } from '../support/database';
import { RunningService, startService, waitFor } from '../support/service';
import { hostedCheckout, inboxOf, waitForStatus } from './ipn-support';

/**
 * The worker's hot statements are prepared once per connection. A migration that adds a column
 * while it runs (a rolling deploy) must not break them: a prepared statement whose result
 * changes shape fails on every connection that prepared it.
 */
describe('IPN verification across a schema change made while the worker runs', () => {
  let service: RunningService;
  let dataSource: DataSource;
  const column = `probe_${process.pid}`;

  beforeAll(async () => {
    service = await startService({ worker: true, env: { POLL_SCHEDULE_SECONDS: '600' } });
    dataSource = await openTestDataSource();
  }, 60_000);
  afterAll(async () => {
    await dataSource?.query(`ALTER TABLE orders DROP COLUMN IF EXISTS ${column}`);
    await service?.close();
    await dataSource?.destroy();
  });

  async function paidThroughIpn(): Promise<void> {
    const checkouts = await Promise.all([1, 2, 3, 4, 5, 6].map(() => hostedCheckout(service)));
    for (const checkout of checkouts) {
      await service.sandbox.control.settle(checkout.orderTrackingId, 'completed', 'card');
    }
    for (const checkout of checkouts) {
      await waitForStatus(dataSource, checkout.reference, 'completed', 15_000);
      await waitFor('row applied', async () => {
        const [row] = await inboxOf(dataSource, checkout.orderTrackingId);
        return row?.status === 'applied';
      });
    }
  }

  it('still verifies and applies notifications after a column is added to orders', async () => {
    await paidThroughIpn();
    // Every pooled connection of the worker reads an inbox row once (preparing the statement)...
    const [row] = (await dataSource.query(
      `SELECT id FROM ipn_notifications WHERE status = 'applied' LIMIT 1`,
    )) as { id: string }[];
    const verifier = service.workerApp!.get(NotificationVerifier);
    const readOnEveryConnection = () =>
      Promise.all(
        Array.from({ length: 8 }, () =>
          verifier.verify({ notificationId: row.id, orderKey: row.id, attempt: 0 }),
        ),
      );
    await readOnEveryConnection();
    await dataSource.query(`ALTER TABLE orders ADD COLUMN ${column} integer`);
    // ...and again after the schema changed: none may fail.
    await expect(readOnEveryConnection()).resolves.toBeDefined();
    await paidThroughIpn();
  }, 60_000);
});
