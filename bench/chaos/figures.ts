/**
 * What a payment team asks once it has settled: orders final, outcomes applied twice,
 * notifications acknowledged but lost, answers other than 200 to the gateway, refunds lost or
 * doubled, merchant events lost or doubled. Printed; true when every lost/doubled figure is 0 and
 * every order final.
 */
import { call } from '../processes';
import {
  BACKEND,
  FAILING_SECONDS,
  format,
  KILLS,
  RATE,
  RECEIVER_FAILURE_SHARE,
  REFUND_EVERY,
  SLOW_MS,
  SLOW_SECONDS,
  tally,
} from './campaign';
import { Customers } from './customers';
import { CampaignDatabase, notificationRecords, Settled } from './settle';
import { WebhookReceiver } from './webhook-receiver';

export async function reportFigures(options: {
  db: CampaignDatabase;
  sandbox: string;
  customers: Customers;
  receiver: WebhookReceiver;
  redisDown: [number, number] | null;
  postgresDown: [number, number];
  settled: Settled;
  logs: string;
}): Promise<boolean> {
  const { db, sandbox, customers, receiver, redisDown, postgresDown, logs } = options;
  const { settledAfter, unanswered } = options.settled;
  const { purchases, checkoutAnswers, refundAnswers } = customers;
  const { deliveries } = receiver;
  const query = <T>(text: string, values: unknown[] = []) => db.query<T>(text, values);
  const references = purchases.filter((p) => p.trackingId).map((p) => p.reference);

  const stored = await query<{ reference: string; status: string }>(
    `SELECT merchant_reference AS reference, status FROM orders WHERE merchant_reference = ANY($1)`,
    [references],
  );
  const statusOf = new Map(stored.map((row) => [row.reference, row.status]));
  const paid = purchases.filter((p) => p.paid);
  const notFinal = paid.filter((p) => (statusOf.get(p.reference) ?? 'pending') === 'pending');
  const wrongOutcome = paid.filter((p) => {
    const status = statusOf.get(p.reference);
    if (!status || status === 'pending') return false;
    return p.outcome === 'failed'
      ? status !== 'failed'
      : !['completed', 'reversed'].includes(status);
  });
  const [twiceInTimeline] = await query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT order_id, to_status FROM order_events
      WHERE type = 'status_changed' GROUP BY 1, 2 HAVING count(*) > 1) d`,
  );
  const eventRows = await query<{ id: string; type: string; reference: string | null }>(
    `SELECT e.id, e.type, o.merchant_reference AS reference
       FROM outbox_events e LEFT JOIN orders o ON o.id = e.order_id
      WHERE e.type NOT LIKE 'webhook%'`,
  );
  const eventsPer = new Map<string, number>();
  for (const row of eventRows) tally(eventsPer, `${row.reference}\u0000${row.type}`);
  const eventsDoubled = [...eventsPer.values()].filter((n) => n > 1).length;
  const expectedEvents = paid
    .filter((p) => statusOf.get(p.reference) && statusOf.get(p.reference) !== 'pending')
    .map((p) => `${p.reference}\u0000order.${p.outcome}`);
  const eventsMissing = expectedEvents.filter((key) => !eventsPer.has(key)).length;
  const eventsUndelivered = eventRows.filter((row) => !deliveries.has(row.id)).length;
  const receivedPer = new Map<string, number>();
  for (const delivery of deliveries.values()) {
    tally(receivedPer, `${delivery.reference}\u0000${delivery.type}`);
  }
  const receivedDoubled = [...receivedPer.values()].filter((n) => n > 1).length;
  const redelivered = [...deliveries.values()].filter((d) => d.received > 1).length;

  const records = await notificationRecords(sandbox);
  const acknowledgedPer = new Map<string, number>();
  let notAcknowledged = 0;
  let non200 = 0;
  let non200WhileDatabaseDown = 0;
  for (const record of records) {
    if (record.state === 'acknowledged') tally(acknowledgedPer, record.orderTrackingId);
    else notAcknowledged += 1;
    for (const attempt of record.attempts) {
      if (attempt.httpStatus === 200) continue;
      non200 += 1;
      const at = Date.parse(attempt.at);
      // Grace for the pools to reconnect after the restart.
      if (at >= postgresDown[0] && at <= postgresDown[1] + 5000) non200WhileDatabaseDown += 1;
    }
  }
  const inbox = await query<{ tracking: string; n: number }>(
    `SELECT order_tracking_id AS tracking, count(*)::int AS n FROM ipn_notifications GROUP BY 1`,
  );
  const storedPer = new Map(inbox.map((row) => [row.tracking, row.n]));
  let acknowledgedLost = 0;
  for (const [tracking, acknowledged] of acknowledgedPer) {
    acknowledgedLost += Math.max(0, acknowledged - (storedPer.get(tracking) ?? 0));
  }
  const inboxStatuses = await query<{ status: string; n: number }>(
    `SELECT status, count(*)::int AS n FROM ipn_notifications GROUP BY 1 ORDER BY 1`,
  );
  const unverified = inboxStatuses
    .filter((row) => ['received', 'queued', 'unmatched', 'failed'].includes(row.status))
    .reduce((sum, row) => sum + row.n, 0);

  const refundRows = await query<{ reference: string; status: string; n: number }>(
    // A rejected refund does not count: another may follow it (one refund per payment).
    `SELECT o.merchant_reference AS reference,
            max(r.status) FILTER (WHERE r.status <> 'rejected') AS status,
            count(*) FILTER (WHERE r.status <> 'rejected')::int AS n
       FROM refunds r JOIN orders o ON o.id = r.order_id GROUP BY 1`,
  );
  const refundOf = new Map(refundRows.map((row) => [row.reference, row]));
  const refundsAsked = purchases.filter((p) => p.refund && p.paid);
  const refundsAnswered = refundsAsked.filter((p) => p.refundAnswer);
  const refundsLost = refundsAnswered.filter((p) => !refundOf.has(p.reference)).length;
  let refundsDoubled = refundRows.filter((row) => row.n > 1).length;
  let refundsMissing = 0;
  for (const p of refundsAnswered) {
    const atGateway = JSON.parse(
      (await call(`${sandbox}/__sandbox/orders/${p.trackingId}`, 'GET')).body,
    ) as { refund: unknown; refund_requests: number };
    if (atGateway.refund_requests > 1) refundsDoubled += 1;
    // Lost: asked for, but in the end not accepted here or not made at the gateway.
    const row = refundOf.get(p.reference);
    const accepted = row !== undefined && ['accepted', 'reversed'].includes(row.status);
    if (!accepted || !atGateway.refund) refundsMissing += 1;
  }
  const refundStatuses = new Map<string, number>();
  for (const row of refundRows) tally(refundStatuses, row.status ?? 'rejected');
  const gaveUp = purchases.filter((p) => p.gaveUp);

  const figures = {
    'orders paid or declined at the gateway': paid.length,
    'orders not final': notFinal.length,
    'orders with a wrong outcome': wrongOutcome.length,
    'outcomes applied twice (timeline)': twiceInTimeline.n,
    'notifications acknowledged but lost': acknowledgedLost,
    'notifications the gateway gave up on': notAcknowledged,
    'notifications stored but never verified': unverified,
    'refunds lost': refundsLost + refundsMissing,
    'refunds doubled': refundsDoubled,
    'merchant events lost': eventsMissing + eventsUndelivered,
    'merchant events doubled': eventsDoubled + receivedDoubled,
    'customers or admins who gave up': gaveUp.length,
  };
  const zeroTargets = Object.entries(figures).filter(
    ([name, value]) => name !== 'orders paid or declined at the gateway' && value !== 0,
  );
  const lines = [
    '',
    `Fault campaign: ${purchases.length} checkouts at ${RATE}/s, notifications sent twice, every ${REFUND_EVERY}th paid order refunded, ${Math.round(RECEIVER_FAILURE_SHARE * 100)} % of webhook answers 503; queues on ${BACKEND}`,
    `faults: worker SIGKILL ×${KILLS}; ${redisDown ? `Redis down ${((redisDown[1] - redisDown[0]) / 1000).toFixed(0)} s` : 'Redis stop skipped'}; PostgreSQL crash, down ${((postgresDown[1] - postgresDown[0]) / 1000).toFixed(1)} s; gateway ${SLOW_MS} ms slow for ${SLOW_SECONDS} s; gateway failing (25 % 5xx, 30 % of lookups reset) for ${FAILING_SECONDS} s`,
    `settled ${settledAfter.toFixed(1)} s after the last fault`,
    '',
    ...Object.entries(figures).map(([name, value]) => `  ${name.padEnd(44)} ${value}`),
    '',
    `  checkout answers (with retries): ${format(checkoutAnswers)}`,
    `  refund answers (with retries):   ${format(refundAnswers)}; ${unanswered} left unknown by the gateway's failures, resolved by the admin from the gateway's record; refunds now ${format(refundStatuses)}`,
    `  answers to the gateway's notifications other than 200: ${non200} (${non200WhileDatabaseDown} while PostgreSQL was down); every one retried by the gateway`,
    `  notifications stored: ${format(new Map(inboxStatuses.map((r) => [r.status, r.n])))}`,
    `  merchant events: ${eventRows.length} recorded, ${deliveries.size} received; ${redelivered} received more than once under the same webhook-id (at-least-once, as designed); ${receiver.posts()} posts`,
    ...gaveUp.map((p) => `  gave up: ${p.reference} (${p.gaveUp})`),
    ...notFinal.slice(0, 10).map((p) => `  not final: ${p.reference} ${p.trackingId}`),
    ...wrongOutcome
      .slice(0, 10)
      .map((p) => `  wrong outcome: ${p.reference} ${statusOf.get(p.reference)}`),
    '',
    zeroTargets.length === 0
      ? 'every lost and doubled figure is 0, every order final'
      : `FAILED: ${zeroTargets.map(([name, value]) => `${name} ${value}`).join(', ')}`,
    `logs: ${logs}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return zeroTargets.length === 0;
}
