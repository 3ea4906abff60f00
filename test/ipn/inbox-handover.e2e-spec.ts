import { HANDOVER_SECONDS, INBOX_CHANNEL } from '@app/checkout/ipn/inbox-channel';
import { waitFor } from '../support/service';
import { workerSuiteForTests } from '../support/worker-suite';
import { inboxOf, notify, paidSilently, waitForStatus } from './ipn-support';

/**
 * The api's signal hands a stored notification over to the worker's relay, which queues its job
 * without writing the row (bench/operation-budgets.ts counts the rows). A notification no relay
 * heard is not lost: its row comes due when the handover lapses and the relay claims it.
 */
describe('IPN inbox: the handover by signal, and what no relay heard', () => {
  const suite = workerSuiteForTests({
    // A database of its own: no other suite's rows come due meanwhile.
    ownDatabase: 'inbox_handover',
    env: { POLL_SCHEDULE_SECONDS: '600' },
  });

  it('a notification the signal handed over is applied before its row comes due', async () => {
    const { service, dataSource } = suite;
    const [order] = await paidSilently(service, 1);
    const sentAt = Date.now();
    expect(
      (await notify(service, { trackingId: order.orderTrackingId, reference: order.reference }))
        .status,
    ).toBe(200);
    await waitForStatus(dataSource, order.reference, 'completed', 4_000);
    expect(Date.now() - sentAt).toBeLessThan(HANDOVER_SECONDS * 1000);
    // Before the row came due: no claim could have taken it.
    const [row] = await inboxOf(dataSource, order.orderTrackingId);
    expect(row.status).toBe('applied');
  }, 30_000);

  it('one stored while the relay was not listening is claimed once its handover lapses', async () => {
    const { service, dataSource } = suite;
    const [order] = await paidSilently(service, 1);
    // The relay's LISTEN connection cut: it listens again a second later, after the signal.
    const listeners = (await dataSource.query(
      `SELECT pg_terminate_backend(pid) AS cut FROM pg_stat_activity
        WHERE datname = current_database() AND query = $1`,
      [`LISTEN ${INBOX_CHANNEL}`],
    )) as { cut: boolean }[];
    expect(listeners.length).toBeGreaterThan(0);
    const sentAt = Date.now();
    expect(
      (await notify(service, { trackingId: order.orderTrackingId, reference: order.reference }))
        .status,
    ).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, (HANDOVER_SECONDS - 2) * 1000));
    const [waiting] = await inboxOf(dataSource, order.orderTrackingId);
    expect(waiting.status).toBe('received');
    await waitForStatus(dataSource, order.reference, 'completed', (HANDOVER_SECONDS + 10) * 1000);
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual((HANDOVER_SECONDS - 2) * 1000);
    await waitFor('the notification applied', async () =>
      (await inboxOf(dataSource, order.orderTrackingId)).every((row) => row.status === 'applied')
        ? true
        : null,
    );
  }, 40_000);
});
