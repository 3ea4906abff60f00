import request from 'supertest';
import { hostedBody, postCheckout } from '../checkout/support';
import { waitFor } from '../support/service';
import { workerSuiteForTests } from '../support/worker-suite';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

/**
 * The overview against the api, the worker and PostgreSQL, on a database of its own (it counts
 * everything): what the last hour, day and month hold, counted live and from the hours the
 * worker summed, which must agree; history summed from the oldest order; a payment learned late
 * counted in the hour it was paid.
 */
describe('overview (api + worker + Postgres)', () => {
  // Queues of its own too: another suite's worker must not take its summing jobs.
  const the = workerSuiteForTests({ ownDatabase: 'overview' });

  const overview = (query: string) =>
    request(the.service.apiUrl).get(`/v1/admin/overview?${query}`).set(the.service.adminAuth);

  const sum = () =>
    the.runJob<{ hours: number; resummed: number; recent: number }>('sum-activity', {});

  it('is scheduled every minute in the worker', async () => {
    const scheduler = await waitFor('the overview scheduler', () =>
      the.queue.getJobScheduler('activity-totals'),
    );
    expect(scheduler).toMatchObject({ name: 'sum-activity', pattern: '* * * * *' });
    // The rest of the suite sums when it says so.
    await the.queue.removeJobScheduler('activity-totals');
    await waitFor('no summing under way', async () =>
      (await the.queue.getJobs(['waiting', 'active', 'delayed'])).every(
        (job) => job.name !== 'sum-activity',
      ),
    );
  });

  it("counts the last hour's checkouts, outcomes, money, failures, lag and webhook attempts per minute", async () => {
    const created = await postCheckout(the.service, hostedBody());
    expect(created.status).toBe(201);
    const paidAt = ago(10 * MINUTE);
    const card = await the.seed.moneyOrder({ paidAt, amount: '1500.50' });
    await the.seed.moneyOrder({ paidAt, amount: '200.00', kind: 'mobile_money' });
    await the.seed.moneyOrder({ paidAt: ago(20 * MINUTE), amount: '35000.00', currency: 'UGX' });
    for (const reason of ['insufficient_funds', 'insufficient_funds', 'request_terminated_by_user'])
      await the.seed.moneyOrder({ failedAt: ago(15 * MINUTE), failureReason: reason });
    await the.seed.moneyOrder({ cancelledAt: ago(15 * MINUTE) });
    await the.seed.moneyRefund(card.id, {
      status: 'accepted',
      amount: '40.00',
      acceptedAt: ago(5 * MINUTE),
    });
    for (const lag of [100, 700, 1500, null]) await the.seed.notificationAt(ago(30 * MINUTE), lag);
    for (const status of [200, 500, null])
      await the.seed.webhookAttemptAt(ago(30 * MINUTE), status);

    const response = await overview('window=hour');
    expect(response.status).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const { totals, buckets } = response.body;
    expect(response.body).toMatchObject({ window: 'hour', bucket: 'minute', complete: true });
    expect(buckets).toHaveLength(60);
    expect(totals).toMatchObject({
      checkouts: 8,
      hosted: 7,
      mobile_money: 1,
      paid: 3,
      failed: 3,
      expired: 3, // the failed orders, never paid, expired at their failure
      cancelled: 1,
      pending_now: 1,
      refunds: 1,
      refund_requests: 1,
      notifications: 4,
      notifications_open: 1,
      lag_p95_ms: 2000,
      webhook_delivered: 1,
      webhook_failed: 2,
    });
    expect(totals.paid_amounts).toEqual([
      { currency: 'KES', count: 2, amount: '1700.50' },
      { currency: 'UGX', count: 1, amount: '35000.00' },
    ]);
    expect(totals.refund_amounts).toEqual([{ currency: 'KES', count: 1, amount: '-40.00' }]);
    expect(totals.failures_by_reason).toEqual([
      { reason: 'insufficient_funds', count: 2 },
      { reason: 'request_terminated_by_user', count: 1 },
    ]);
    expect(totals.notification_lag.filter((bin: { count: number }) => bin.count > 0)).toEqual([
      { under_ms: 250, count: 1 },
      { under_ms: 1000, count: 1 },
      { under_ms: 2000, count: 1 },
    ]);
    // Each in its minute: the two payments ten minutes ago share one.
    const minuteOf = (at: string) =>
      new Date(Math.floor(Date.parse(at) / MINUTE) * MINUTE).toISOString();
    const paidMinute = buckets.find(
      (bucket: { starts_at: string }) => bucket.starts_at === minuteOf(paidAt),
    );
    expect(paidMinute).toMatchObject({ paid: 2 });
    expect(buckets.reduce((n: number, bucket: { paid: number }) => n + bucket.paid, 0)).toBe(3);
    expect(buckets[59].starts_at).toBe(minuteOf(response.body.to));
  });

  it('sums history from the oldest order, and the summed hours agree with counting live', async () => {
    // As a database migrated with a history would start: nothing summed yet.
    await the.dataSource.query(`DELETE FROM activity_rollup`);
    await the.dataSource.query(`DELETE FROM activity_totals`);
    const oldPaidAt = ago(10 * DAY);
    const old = await the.seed.moneyOrder({ paidAt: oldPaidAt, amount: '10.00' });
    await the.seed.moneyRefund(old.id, {
      status: 'accepted',
      amount: '10.00',
      acceptedAt: ago(9 * DAY),
    });
    await the.seed.moneyOrder({ failedAt: ago(5 * HOUR), failureReason: 'invalid_card' });
    await the.seed.notificationAt(ago(5 * HOUR), 3000);
    await the.seed.webhookAttemptAt(ago(5 * HOUR), 204);
    // In an hour summed below, and counted live when the comparison moves the summing back.
    await the.seed.moneyOrder({ paidAt: ago(95 * MINUTE), amount: '5.00', kind: 'mobile_money' });
    await the.seed.notificationAt(ago(95 * MINUTE), 400);

    const before = await overview('window=month&tz=Africa/Nairobi');
    expect(before.body).toMatchObject({ summed_through: null, complete: false });
    const report = await sum();
    // From the hour of the oldest order (made a minute before its payment ten days ago) to the
    // last hour that ended ten minutes ago.
    const [state] = await the.dataSource.query(`SELECT rolled_through FROM activity_rollup`);
    const summedThrough = new Date(state.rolled_through).getTime();
    const oldestHour = Math.floor((Date.parse(oldPaidAt) - MINUTE) / HOUR) * HOUR;
    expect(report.hours).toBe((summedThrough - oldestHour) / HOUR);
    expect(report.hours).toBeGreaterThanOrEqual(10 * 24 - 1);
    const settled = Math.floor((Date.now() - 10 * MINUTE) / HOUR) * HOUR;
    expect([settled, settled - HOUR]).toContain(summedThrough);

    const month = await overview('window=month&tz=Africa/Nairobi');
    expect(month.status).toBe(200);
    expect(month.body).toMatchObject({ bucket: 'day', tz: 'Africa/Nairobi', complete: true });
    expect(month.body.buckets).toHaveLength(30);
    expect(month.body.totals).toMatchObject({
      paid: 5,
      refunds: 2,
      failed: 4,
      notifications: 6,
      webhook_delivered: 2,
    });
    expect(month.body.totals.paid_amounts).toEqual([
      { currency: 'KES', count: 4, amount: '1715.50' },
      { currency: 'UGX', count: 1, amount: '35000.00' },
    ]);
    // Days are local: the payment ten days ago falls on its Nairobi day, which starts at 21:00Z.
    const nairobiDay = new Date(Date.parse(ago(10 * DAY)) + 3 * HOUR).toISOString().slice(0, 10);
    const day = month.body.buckets.find(
      (bucket: { starts_at: string }) =>
        bucket.starts_at ===
        new Date(Date.parse(`${nairobiDay}T00:00:00Z`) - 3 * HOUR).toISOString(),
    );
    expect(day).toMatchObject({ paid: 1 });

    // The last summed hours counted live instead (their summing undone) give the same answer.
    const summedDay = await overview('window=day');
    const back = `date_trunc('hour', now(), 'UTC') - interval '2 hours'`;
    await the.dataSource.query(`DELETE FROM activity_totals WHERE hour >= ${back}`);
    await the.dataSource.query(`UPDATE activity_rollup SET rolled_through = ${back}`);
    const liveDay = await overview('window=day');
    const { summed_through: _s, to: _t, ...live } = liveDay.body;
    const { summed_through: _s2, to: _t2, ...summed } = summedDay.body;
    expect(live).toEqual(summed);
    expect(summedDay.body.totals.paid).toBe(4);
    await the.dataSource.query(`DELETE FROM activity_rollup`);
    await sum();
  });

  it('counts a payment learned late in the summed hour it was paid', async () => {
    const lateAt = ago(3 * DAY - 30 * MINUTE);
    const late = await the.seed.moneyOrder({ paidAt: lateAt, amount: '99.99' });
    const unseen = await overview('window=month');
    expect(unseen.body.totals.paid).toBe(5);
    // The worker learns of it now: the order changes now, dated when it was paid.
    await the.dataSource.query(`UPDATE orders SET updated_at = now() WHERE id = $1`, [late.id]);
    const report = await sum();
    expect(report.resummed).toBeGreaterThanOrEqual(1);
    const [hour] = await the.dataSource.query(
      `SELECT count, amount FROM activity_totals
        WHERE hour = date_trunc('hour', $1::timestamptz, 'UTC') AND measure = 'payment' AND key = 'KES'`,
      [lateAt],
    );
    expect(hour).toEqual({ count: 1, amount: '99.99' });
    const seen = await overview('window=month');
    expect(seen.body.totals.paid).toBe(6);
    expect(seen.body.totals.paid_amounts).toContainEqual({
      currency: 'KES',
      count: 5,
      amount: '1815.49',
    });
  });

  it('sums the recent hours again every hour: a failure a new attempt cleared, a verdict come late', async () => {
    const failedAt = ago(5 * HOUR);
    const failed = await the.seed.moneyOrder({ failedAt, failureReason: 'invalid_card' });
    const open = await the.seed.notificationAt(failedAt, null);
    await the.dataSource.query(
      `UPDATE activity_rollup SET recent_summed_at = now() - interval '2 hours'`,
    );
    await sum();
    const failures = async () =>
      (await overview('window=day')).body.totals.failures_by_reason as {
        reason: string;
        count: number;
      }[];
    expect(await failures()).toContainEqual({ reason: 'invalid_card', count: 2 });
    const before = (await overview('window=day')).body.totals;

    // A new attempt clears the failure (payment-attempts.service); the notification is applied.
    await the.dataSource.query(
      `UPDATE orders SET failed_at = NULL, failure_reason = NULL, status = 'pending', expired_at = NULL
        WHERE id = $1`,
      [failed.id],
    );
    await the.dataSource.query(
      `UPDATE ipn_notifications SET status = 'applied', processed_at = received_at + interval '3 seconds'
        WHERE id = $1`,
      [open.id],
    );
    // Not an hour since: nothing is summed again yet.
    expect((await sum()).recent).toBe(0);
    expect(await failures()).toContainEqual({ reason: 'invalid_card', count: 2 });

    await the.dataSource.query(
      `UPDATE activity_rollup SET recent_summed_at = now() - interval '2 hours'`,
    );
    const report = await sum();
    expect(report.recent).toBeGreaterThanOrEqual(70); // the 72-hour poll horizon's summed hours
    expect(await failures()).toContainEqual({ reason: 'invalid_card', count: 1 });
    const after = (await overview('window=day')).body.totals;
    expect(after.failed).toBe(before.failed - 1);
    expect(after.notifications_open).toBe(before.notifications_open - 1);
    const bin = (totals: typeof after, under: number) =>
      totals.notification_lag.find((b: { under_ms: number | null }) => b.under_ms === under).count;
    expect(bin(after, 5000)).toBe(bin(before, 5000) + 1);
  });

  it('refuses an unknown window or zone, naming the field', async () => {
    const window = await overview('window=year');
    expect(window.status).toBe(400);
    expect(JSON.stringify(window.body)).toContain('window');
    const zone = await overview('tz=Mars/Olympus');
    expect(zone.status).toBe(400);
    expect(zone.body.error.errors).toEqual([expect.objectContaining({ field: 'tz' })]);
    // Days are made of hourly totals: a zone half an hour off UTC cannot cut them.
    const halfHour = await overview('window=month&tz=Asia/Kolkata');
    expect(halfHour.status).toBe(400);
    expect(halfHour.body.error.errors).toEqual([
      { field: 'tz', reason: 'must be a whole number of hours from UTC (the totals are hourly)' },
    ]);
    const unauthorised = await request(the.service.apiUrl).get('/v1/admin/overview');
    expect(unauthorised.status).toBe(401);
  });
});
