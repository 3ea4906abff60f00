import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '@app/persistence';
import { ALL_MIGRATIONS } from '../../migrations';
import { hostedBody } from '../checkout/support';
import { newSecret } from '../merchant-events/webhook-harness';
import { startWebhookReceiver, WebhookReceiver } from '../merchant-events/webhook-receiver';
import { isReady, startAppProcess, stopAll } from '../support/app-processes';
import { BaseBackup, PostgresCluster, PostgresWorkspace } from '../support/postgres-cluster';
import { RunningSandbox, SANDBOX_CREDENTIALS, startSandbox } from '../support/sandbox';
import { recordSecrets } from '../support/secret-audit';
import { freePorts, waitFor } from '../support/service';
import { currentTestRun } from '../support/test-servers';

/**
 * The backup and restore drill of docs/operations.md ("Backups and restore"), on PostgreSQL
 * binaries on disk: a primary archiving its WAL, the api and worker as processes on it, payments
 * flowing (hosted checkouts paid at the sandbox gateway, its notifications verified, refunds,
 * signed webhooks to the shop), a base backup taken in the middle of them, more payments, a named
 * restore point, orders after it, then the primary stopped cleanly. A cluster restored from the
 * backup and the archive to the latest point holds every row the primary held, and everything
 * the outside world was told (checkouts answered, notifications acknowledged, refunds accepted,
 * webhooks delivered). One restored to the restore point instead lacks the later orders; the
 * service started on it passes the operator's checks, and the payments the gateway took for those
 * orders come back as payments without an order.
 *
 * The queues run on the PostgreSQL backend, in the database restored: the drill is about the
 * database (a Redis that outlives its database is the wiped-Redis drill's subject).
 */
const ROOT = join(__dirname, '..', '..');
const run = promisify(execFile);
const DATABASE = 'pesapal_test_backup_drill';
const RESTORE_POINT = 'drill_before_late_orders';
/** Customers checking out at once while the base backup is taken. */
const CUSTOMERS = 3;
/** Orders created (and paid) after the base backup: only the WAL archive holds them. */
const AFTER_BACKUP = 6;
/** Orders after the restore point: paid before the primary stops, and paid only after a restore. */
const LATE_PAID = 3;
const LATE_UNPAID = 3;

interface Checkout {
  reference: string;
  trackingId: string;
  amount: string;
}

interface Apps {
  apiUrl: string;
  /** Their environment (secrets included; never log it). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

const shopKey = `shop_${randomBytes(12).toString('hex')}`;
const adminKey = `admin_${randomBytes(12).toString('hex')}`;
const webhookSecret = newSecret();
const ipnSecret = `ipn_${randomBytes(8).toString('hex')}`;
const shopAuth = { Authorization: `Bearer ${shopKey}` };
const adminAuth = { Authorization: `Bearer ${adminKey}` };

let workspace: PostgresWorkspace;
let backup: BaseBackup;
let sandbox: RunningSandbox;
let receiver: WebhookReceiver;
let apiPort: number;
let workerPort: number;
const running: Apps[] = [];

/** What the primary held when it stopped, and what it had told the outside world. */
const before = {
  tables: new Map<string, string[]>(),
  checkouts: [] as Checkout[],
  afterBackup: [] as Checkout[],
  /** Created before the restore point, paid after it. */
  straddling: undefined as Checkout | undefined,
  latePaid: [] as Checkout[],
  lateUnpaid: [] as Checkout[],
  refunds: [] as string[],
  auditHead: undefined as { seq: string | number; hash: string } | undefined,
};

/** The api and a worker on a database; the api always on the same port (the gateway's IPN URL). */
async function startApps(database: PostgresCluster): Promise<Apps> {
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const env: Record<string, string> = {
    DATABASE_URL: database.url(DATABASE),
    QUEUE_BACKEND: 'postgres',
    QUEUE_PREFIX: 'backup_drill',
    PESAPAL_BASE_URL: sandbox.baseUrl,
    PESAPAL_CONSUMER_KEY: SANDBOX_CREDENTIALS.consumerKey,
    PESAPAL_CONSUMER_SECRET: SANDBOX_CREDENTIALS.consumerSecret,
    PUBLIC_BASE_URL: apiUrl,
    SHOP_API_KEYS: `drill-shop:${shopKey}`,
    ADMIN_API_KEYS: `drill-admin:${adminKey}`,
    IPN_PATH_SECRET: ipnSecret,
    // A notification for no order of ours is looked up on its second try: soon, here.
    IPN_UNMATCHED_RETRY_MS: '500',
    ORDER_WEBHOOK_URL: receiver.url,
    ORDER_WEBHOOK_SECRET: webhookSecret,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    // An unpaid order is looked up once a second after its creation, then not for 10 minutes.
    POLL_SCHEDULE_SECONDS: '1,600',
    SWEEP_INTERVAL_MS: '250',
    RUN_MIGRATIONS: 'false',
    WORKER_NICE: '0',
    DATABASE_POOL_SIZE: '6',
    WORKER_DATABASE_POOL_SIZE: '3',
  };
  const processes = [
    startAppProcess('api', { ...env, PORT: String(apiPort) }),
    startAppProcess('worker', { ...env, WORKER_PORT: String(workerPort) }),
  ];
  const apps: Apps = {
    apiUrl,
    env,
    stop: () => stopAll(processes),
  };
  running.push(apps);
  await waitFor(
    'the api and the worker ready',
    async () =>
      (await Promise.all([apiUrl, `http://127.0.0.1:${workerPort}`].map(isReady))).every(Boolean) ||
      null,
    90_000,
    250,
  );
  return apps;
}

async function stopApps(apps: Apps): Promise<void> {
  await apps.stop();
  running.splice(running.indexOf(apps), 1);
}

async function checkout(apiUrl: string): Promise<Checkout> {
  const body = hostedBody();
  const answer = await request(apiUrl).post('/v1/checkouts').set(shopAuth).send(body);
  expect(answer.status).toBe(201);
  return {
    reference: String(body.reference),
    trackingId: answer.body.order_tracking_id,
    amount: String(body.amount),
  };
}

/** A customer pays at the gateway; the shop waits until the service says so. */
async function pay(apiUrl: string, order: Checkout): Promise<void> {
  await sandbox.control.settle(order.trackingId, 'completed', 'card');
  await waitFor(
    `${order.reference} completed`,
    async () => {
      const answer = await request(apiUrl).get(`/v1/orders/${order.reference}`).set(shopAuth);
      return answer.body.status === 'completed' || null;
    },
    30_000,
    100,
  );
}

async function refund(apiUrl: string, order: Checkout): Promise<void> {
  const answer = await request(apiUrl)
    .post(`/v1/admin/orders/${order.reference}/refunds`)
    .set(adminAuth)
    .send({ amount: order.amount, reason: 'backup drill' });
  expect(answer.status).toBe(201);
  expect(answer.body.refund.status).toBe('accepted');
  before.refunds.push(answer.body.refund.id);
}

/** Customers checking out and paying, one refund in three, until `until()` says enough. */
async function paymentsFlowing(apiUrl: string, until: () => boolean, into: Checkout[]) {
  let paid = 0;
  await Promise.all(
    Array.from({ length: CUSTOMERS }, async () => {
      while (!until()) {
        const order = await checkout(apiUrl);
        into.push(order);
        await pay(apiUrl, order);
        paid += 1;
        if (paid % 3 === 0) await refund(apiUrl, order);
      }
    }),
  );
}

const count = async (cluster: PostgresCluster, sql: string, params: unknown[] = []) =>
  (await cluster.query<{ n: number }>(`SELECT (${sql})::int AS n`, params, DATABASE))[0].n;

/** Every notification verified and every merchant event delivered to the shop. */
async function settled(cluster: PostgresCluster): Promise<void> {
  await waitFor(
    'notifications verified and merchant events delivered',
    async () =>
      (await count(
        cluster,
        `SELECT count(*) FROM ipn_notifications WHERE status IN ('received', 'queued', 'unmatched')`,
      )) === 0 &&
      (await count(cluster, `SELECT count(*) FROM outbox_events WHERE delivered_at IS NULL`)) === 0,
    30_000,
    200,
  );
}

/**
 * Every row of every table the service keeps, as text, table by table. Unlogged tables (the
 * gateway token, lookup reservations, rate-limit windows) are left out: they are never in the WAL
 * and come back empty by design.
 */
async function tablesOf(cluster: PostgresCluster): Promise<Map<string, string[]>> {
  const tables = await cluster.query<{ name: string }>(
    `SELECT format('%I.%I', n.nspname, c.relname) AS name
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p') AND c.relpersistence = 'p'
        AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
      ORDER BY 1`,
    [],
    DATABASE,
  );
  const rows = new Map<string, string[]>();
  for (const { name } of tables) {
    const content = await cluster.query<{ row: string }>(
      `SELECT t::text AS row FROM ${name} t ORDER BY 1`,
      [],
      DATABASE,
    );
    rows.set(
      name,
      content.map((r) => r.row),
    );
  }
  return rows;
}

/** Per table, the rows one side has and the other lacks (the first three of each, and how many). */
function differences(expected: Map<string, string[]>, actual: Map<string, string[]>) {
  return [...expected].flatMap(([table, rows]) => {
    const present = new Set(actual.get(table) ?? []);
    const wanted = new Set(rows);
    const missing = rows.filter((row) => !present.has(row));
    const extra = (actual.get(table) ?? []).filter((row) => !wanted.has(row));
    if (missing.length === 0 && extra.length === 0) return [];
    return [
      {
        table,
        missing: missing.length,
        extra: extra.length,
        first: [...missing, ...extra].slice(0, 3),
      },
    ];
  });
}

const referencesIn = async (cluster: PostgresCluster, orders: Checkout[]) =>
  (
    await cluster.query<{ merchant_reference: string }>(
      `SELECT merchant_reference FROM orders WHERE merchant_reference = ANY($1) ORDER BY 1`,
      [orders.map((order) => order.reference)],
      DATABASE,
    )
  ).map((row) => row.merchant_reference);

const sorted = (values: string[]) => [...values].sort();

describe('backups and restore: a base backup and the WAL archive taken while payments flow', () => {
  beforeAll(async () => {
    // The child processes' log lines are audited for these (the run's log audit).
    recordSecrets(currentTestRun().auditDir, [
      { kind: 'shop API key', value: shopKey },
      { kind: 'admin API key', value: adminKey },
      { kind: 'webhook secret', value: webhookSecret },
    ]);
    workspace = await PostgresWorkspace.create('backup-drill');
    const primary = await workspace.primary();
    await primary.query(`CREATE DATABASE ${DATABASE}`);
    const migrations = new DataSource(
      buildDataSourceOptions(primary.url(DATABASE), { poolSize: 2 }),
    );
    await migrations.initialize();
    await migrations.runMigrations({ transaction: 'each' });
    await migrations.destroy();

    sandbox = await startSandbox();
    receiver = await startWebhookReceiver([webhookSecret]);
    [apiPort, workerPort] = await freePorts(2);
    const apps = await startApps(primary);

    const straddling = await checkout(apps.apiUrl);
    before.straddling = straddling;
    // The base backup is taken while customers pay; more pay once it is done.
    // How many checkouts were answered when the backup was done (none until then).
    let backupTakenAt = Infinity;
    const flowing = paymentsFlowing(
      apps.apiUrl,
      () => before.checkouts.length - backupTakenAt >= AFTER_BACKUP,
      before.checkouts,
    );
    await waitFor('payments under way', () => before.checkouts.length >= CUSTOMERS * 2, 30_000);
    backup = await workspace.baseBackup(primary);
    backupTakenAt = before.checkouts.length;
    await flowing;
    before.afterBackup = before.checkouts.slice(backupTakenAt);
    await settled(primary);

    // Its first lookup is behind it: the restored workers will not look it up for 10 minutes.
    await waitFor(
      'the unpaid order looked up once',
      async () =>
        (await count(primary, `SELECT poll_attempts FROM orders WHERE merchant_reference = $1`, [
          straddling.reference,
        ])) >= 1,
      30_000,
      200,
    );

    // The operator's reference point: the audit trail's head, then a named restore point.
    const verified = await request(apps.apiUrl).get('/v1/admin/audit/verify').set(adminAuth);
    expect(verified.body).toMatchObject({ ok: true });
    before.auditHead = verified.body.head;
    await primary.query(`SELECT pg_create_restore_point('${RESTORE_POINT}')`, [], DATABASE);

    // After it: an earlier order paid, new orders paid before the primary stops, and customers
    // still on the payment page.
    await pay(apps.apiUrl, straddling);
    for (let index = 0; index < LATE_PAID; index += 1) {
      const order = await checkout(apps.apiUrl);
      await pay(apps.apiUrl, order);
      before.latePaid.push(order);
    }
    for (let index = 0; index < LATE_UNPAID; index += 1) {
      before.lateUnpaid.push(await checkout(apps.apiUrl));
    }
    await settled(primary);
    await stopApps(apps);
    before.tables = await tablesOf(primary);
    // A clean stop: the last WAL segment is archived on the way down.
    await primary.stop();
  }, 240_000);

  afterAll(async () => {
    for (const apps of [...running]) await apps.stop().catch(() => undefined);
    await sandbox?.close();
    await receiver?.close();
    await workspace?.close();
  }, 60_000);

  it('restored to the latest point: every row, and everything acknowledged, is there', async () => {
    const restored = await workspace.restore(backup, 'restored-latest', { latest: true });
    const after = await tablesOf(restored);
    // Row for row, table by table, what the primary held when it stopped.
    expect([...after.keys()]).toEqual([...before.tables.keys()]);
    expect(differences(before.tables, after)).toEqual([]);
    // ... including what was written after the base backup, which only the WAL archive held.
    expect(before.afterBackup.length).toBeGreaterThanOrEqual(AFTER_BACKUP);
    const all = [
      ...before.checkouts,
      before.straddling as Checkout,
      ...before.latePaid,
      ...before.lateUnpaid,
    ];
    expect(await referencesIn(restored, all)).toEqual(sorted(all.map((o) => o.reference)));

    // What the outside world was told is all there: each notification the gateway saw
    // acknowledged is stored, each refund the admin saw accepted, each webhook the shop received.
    const acknowledged = (await sandbox.control.notificationLog()).filter(
      (record) => record.state === 'acknowledged',
    );
    expect(acknowledged.length).toBeGreaterThanOrEqual(before.checkouts.length);
    const stored = await restored.query<{ order_tracking_id: string; n: number }>(
      `SELECT order_tracking_id, count(*)::int AS n FROM ipn_notifications GROUP BY 1`,
      [],
      DATABASE,
    );
    const storedPerOrder = new Map(stored.map((row) => [row.order_tracking_id, row.n]));
    const acknowledgedPerOrder = new Map<string, number>();
    for (const record of acknowledged) {
      const id = record.orderTrackingId;
      acknowledgedPerOrder.set(id, (acknowledgedPerOrder.get(id) ?? 0) + 1);
    }
    const missing = [...acknowledgedPerOrder].filter(
      ([id, n]) => (storedPerOrder.get(id) ?? 0) < n,
    );
    expect(missing).toEqual([]);
    expect(before.refunds.length).toBeGreaterThan(0);
    const refunds = await restored.query<{ id: string; status: string }>(
      `SELECT id, status FROM refunds WHERE id = ANY($1)`,
      [before.refunds],
      DATABASE,
    );
    expect(sorted(refunds.map((r) => r.id))).toEqual(sorted(before.refunds));
    const delivered = [...new Set(receiver.delivered().map((webhook) => webhook.eventId))];
    expect(delivered.length).toBeGreaterThan(before.checkouts.length);
    const events = await restored.query<{ id: string }>(
      `SELECT id FROM outbox_events WHERE id = ANY($1::uuid[])`,
      [delivered],
      DATABASE,
    );
    expect(sorted(events.map((e) => e.id))).toEqual(sorted(delivered));
    await restored.stop();
  }, 60_000);

  it('restored to the restore point: later orders absent, their payments kept as payments without an order', async () => {
    const restored = await workspace.restore(backup, 'restored-earlier', { name: RESTORE_POINT });
    const late = [...before.latePaid, ...before.lateUnpaid];
    expect(await referencesIn(restored, late)).toEqual([]);
    expect(await referencesIn(restored, before.checkouts)).toEqual(
      sorted(before.checkouts.map((o) => o.reference)),
    );

    const straddling = before.straddling as Checkout;
    const [{ status }] = await restored.query<{ status: string }>(
      `SELECT status FROM orders WHERE merchant_reference = $1`,
      [straddling.reference],
      DATABASE,
    );
    expect(status).toBe('pending');

    // The operator's checks (docs/operations.md, npm run restore:check): every migration
    // applied, the audit chain whole up to the head noted before the restore point, and
    // reconciliation, which finds the order the gateway settled after the restore point.
    const apps = await startApps(restored);
    const head = before.auditHead as { seq: string | number; hash: string };
    const checked = await run(
      process.execPath,
      [
        '-r',
        '@swc-node/register',
        'scripts/check-restore.ts',
        '--api',
        apps.apiUrl,
        '--audit-head',
        `${head.seq}:${head.hash}`,
      ],
      { cwd: ROOT, env: { ...process.env, ...apps.env } },
    );
    const report = JSON.parse(checked.stdout) as Record<string, Record<string, unknown>> & {
      ok: boolean;
      problems: string[];
    };
    expect({ ok: report.ok, problems: report.problems }).toEqual({ ok: true, problems: [] });
    expect(report.database).toEqual({ in_recovery: false, timeline: 2 });
    expect(report.migrations).toEqual({
      applied: ALL_MIGRATIONS.length,
      release: ALL_MIGRATIONS.length,
      missing: [],
      unknown: [],
    });
    expect(report.audit).toMatchObject({ ok: true });
    expect(report.reconciliation).toEqual({
      mismatch_count: 1,
      mismatched: [straddling.reference],
    });
    expect(report.open_payments_without_an_order).toBe(0);

    // Reconciliation's finding, as the admin sees it; a sync brings the order up to date.
    const reconcile = async () => {
      const answer = await request(apps.apiUrl).post('/v1/admin/reconcile').set(adminAuth).send({});
      expect(answer.status).toBe(200);
      expect(answer.body.orders_checked).toBeGreaterThan(before.checkouts.length);
      return answer.body as {
        mismatch_count: number;
        gateway_mismatches: { reference: string; ours: { status: string } }[];
      };
    };
    expect((await reconcile()).gateway_mismatches).toEqual([
      expect.objectContaining({
        reference: straddling.reference,
        ours: expect.objectContaining({ status: 'pending' }),
      }),
    ]);
    const synced = await request(apps.apiUrl)
      .post(`/v1/admin/orders/${straddling.reference}/sync`)
      .set(adminAuth);
    expect(synced.status).toBeLessThan(300);
    const order = await request(apps.apiUrl)
      .get(`/v1/orders/${straddling.reference}`)
      .set(shopAuth);
    expect(order.body.status).toBe('completed');
    expect((await reconcile()).mismatch_count).toBe(0);

    // The gateway notifies payments for orders the restored database does not hold: those paid
    // before the primary stopped are notified again (the dashboard's resend), and customers still
    // on the payment page pay now, which the gateway notifies by itself.
    for (const order of before.latePaid) {
      const answer = await request(apps.apiUrl).post(`/v1/ipn/${ipnSecret}`).send({
        OrderTrackingId: order.trackingId,
        OrderMerchantReference: order.reference,
        OrderNotificationType: 'IPNCHANGE',
      });
      expect(answer.status).toBe(200);
      expect(answer.body.status).toBe(200);
    }
    for (const order of before.lateUnpaid) {
      await sandbox.control.settle(order.trackingId, 'completed', 'card');
    }
    await sandbox.control.notificationsSettled();
    for (const order of before.lateUnpaid) {
      const log = await sandbox.control.notificationLog(order.trackingId);
      expect(log.map((record) => record.state)).toContain('acknowledged');
    }

    // Each verified by lookup and kept, with what the gateway holds, for an operator to settle.
    const trackingIds = sorted(late.map((order) => order.trackingId));
    const open = await waitFor(
      'every late payment kept as a payment without an order',
      async () => {
        const answer = await request(apps.apiUrl)
          .get('/v1/admin/unmatched-payments')
          .query({ status: 'open', limit: 50 })
          .set(adminAuth);
        expect(answer.status).toBe(200);
        const items = answer.body.items as Record<string, unknown>[];
        const ids = sorted(items.map((item) => String(item.order_tracking_id)));
        return JSON.stringify(ids) === JSON.stringify(trackingIds) ? items : null;
      },
      30_000,
      250,
    );
    for (const order of late) {
      const gateway = await sandbox.control.order(order.trackingId);
      const kept = open.find((item) => item.order_tracking_id === order.trackingId);
      expect(kept).toMatchObject({
        amount: order.amount,
        currency: gateway.currency,
        merchant_reference: order.reference,
        confirmation_code: gateway.confirmation_code,
        payment_method: expect.any(String),
        status: 'open',
      });
      expect(Number(kept?.amount)).toBe(gateway.amount);
    }
    // Their notifications are settled, not left to fail after their retries; still no order.
    const notifications = await restored.query<{ status: string }>(
      `SELECT status FROM ipn_notifications WHERE order_tracking_id = ANY($1)`,
      [trackingIds],
      DATABASE,
    );
    expect(notifications.length).toBeGreaterThanOrEqual(late.length);
    expect(
      notifications.filter((n) => ['failed', 'unmatched', 'received', 'queued'].includes(n.status)),
    ).toEqual([]);
    expect(await referencesIn(restored, late)).toEqual([]);
    await stopApps(apps);
    await restored.stop();
  }, 120_000);
});
