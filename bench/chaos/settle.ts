/**
 * After the faults: wait until every order is final, every notification verified and every
 * event delivered; then resolve the refunds the gateway left unanswered, as an admin would.
 */
import { Client } from 'pg';
import { call, waitUntil } from '../processes';
import { say, SETTLE_SECONDS } from './campaign';
import { Customers } from './customers';
import { Delivery } from './webhook-receiver';

/** The campaign's own connection to the service's database, made again after a crash. */
export class CampaignDatabase {
  private client: Client | null = null;

  constructor(private readonly url: string) {}

  async connect(): Promise<void> {
    this.client = new Client({ connectionString: this.url });
    await this.client.connect();
    // A crash of PostgreSQL ends this connection; the checks at the end reconnect.
    this.client.on('error', () => undefined);
  }

  async query<T>(text: string, values: unknown[] = []): Promise<T[]> {
    for (;;) {
      try {
        return (await this.client!.query(text, values)).rows as T[];
      } catch (error) {
        if (!/terminat|Connection|ECONNRE|not queryable/i.test(String(error))) throw error;
        await this.client!.end().catch(() => undefined);
        this.client = new Client({ connectionString: this.url });
        this.client.on('error', () => undefined);
        await this.client.connect();
      }
    }
  }

  async end(): Promise<void> {
    await this.client?.end().catch(() => undefined);
  }
}

export interface NotificationRecord {
  orderTrackingId: string;
  state: string;
  attempts: { at: string; httpStatus: number | null }[];
}

/** What the sandbox gateway recorded of each notification it sent. */
export const notificationRecords = async (sandbox: string): Promise<NotificationRecord[]> =>
  (
    JSON.parse(
      (await call(`${sandbox}/__sandbox/notifications`, 'GET', { timeoutMs: 30_000 })).body,
    ) as { records: NotificationRecord[] }
  ).records;

export interface Settled {
  /** Seconds from the last fault until nothing was left to do. */
  settledAfter: number;
  /** Refunds the gateway left unanswered (`unknown`), resolved by the admin. */
  unanswered: number;
}

export async function settle(options: {
  db: CampaignDatabase;
  api: string;
  sandbox: string;
  admin: Record<string, string>;
  customers: Customers;
  deliveries: Map<string, Delivery>;
  faultsOver: number;
}): Promise<Settled> {
  const { db, api, sandbox, admin, customers, deliveries, faultsOver } = options;
  const query = <T>(text: string, values: unknown[] = []) => db.query<T>(text, values);
  const references = customers.purchases.filter((p) => p.trackingId).map((p) => p.reference);
  const pendingWork = async (): Promise<string[]> => {
    const left: string[] = [];
    const [orders] = await query<{ n: number }>(
      `SELECT count(*)::int AS n FROM orders WHERE merchant_reference = ANY($1) AND status = 'pending'`,
      [references],
    );
    if (orders.n > 0) left.push(`${orders.n} orders pending`);
    const [inbox] = await query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ipn_notifications WHERE status IN ('received', 'queued', 'unmatched')`,
    );
    if (inbox.n > 0) left.push(`${inbox.n} notifications open`);
    const [refunds] = await query<{ n: number }>(
      `SELECT count(*)::int AS n FROM refunds WHERE status = 'requested'`,
    );
    if (refunds.n > 0) left.push(`${refunds.n} refunds requested`);
    const events = await query<{ id: string }>(
      `SELECT id FROM outbox_events WHERE type NOT LIKE 'webhook%'`,
    );
    const undelivered = events.filter((e) => !deliveries.has(e.id)).length;
    if (undelivered > 0) left.push(`${undelivered} merchant events not received`);
    const calls = (await notificationRecords(sandbox)).filter(
      (r) => r.state === 'scheduled' || r.state === 'delivering',
    ).length;
    if (calls > 0) left.push(`${calls} gateway notifications still being delivered`);
    return left;
  };
  let left: string[] = [];
  await waitUntil(
    'the service to settle',
    async () => {
      left = await pendingWork();
      return left.length === 0;
    },
    SETTLE_SECONDS * 1000,
    1000,
  ).catch(() => say(`did not settle in ${SETTLE_SECONDS} s: ${left.join(', ')}`));
  const settledAfter = (Date.now() - faultsOver) / 1000;

  // Refunds the gateway left unanswered are `unknown` by design: an admin reads the gateway's
  // own record (the Pesapal dashboard; here the sandbox) and resolves each, then asks again
  // where the request never arrived.
  const unanswered = await query<{ id: string; reference: string; tracking: string }>(
    `SELECT r.id, o.merchant_reference AS reference, o.order_tracking_id AS tracking
       FROM refunds r JOIN orders o ON o.id = r.order_id WHERE r.status = 'unknown'`,
  );
  for (const refund of unanswered) {
    const atGateway = JSON.parse(
      (await call(`${sandbox}/__sandbox/orders/${refund.tracking}`, 'GET')).body,
    ) as { refund: unknown };
    const status = atGateway.refund ? 'accepted' : 'rejected';
    const resolved = await call(`${api}/v1/admin/refunds/${refund.id}/resolve`, 'POST', {
      headers: admin,
      body: { status, note: 'chaos: read from the gateway dashboard' },
    });
    if (resolved.status !== 200 && resolved.status !== 201) {
      throw new Error(`resolve ${refund.id}: ${resolved.status} ${resolved.body}`);
    }
    if (status === 'rejected') {
      await customers.patiently(
        `refund ${refund.reference} again`,
        () => customers.requestRefund(refund.reference, 'chaos campaign, again'),
        (answer) => answer.status === 201,
        customers.refundAnswers,
      );
    }
  }
  if (unanswered.length > 0) {
    await waitUntil(
      'the resolved refunds to settle',
      async () => (await pendingWork()).length === 0,
      60_000,
      500,
    );
  }
  return { settledAfter, unanswered: unanswered.length };
}
