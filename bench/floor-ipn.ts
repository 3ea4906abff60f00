/**
 * The floor under a notification, for bench:ipn to measure beside the service: the least an
 * integration with the same promises must do, in one process with no framework, queue or batching.
 * One Fastify route stores the notification (one INSERT) and acknowledges it after the commit;
 * then, in the same process, it looks the order up at the gateway (one GetTransactionStatus on a
 * kept-alive connection, shared by the notifications of an order that arrive while it runs) and
 * applies a completion once: the order, its timeline event and the inbox rows the lookup answered
 * in one statement. What the service adds around this: the api and worker split with a queue
 * between them (a verification survives the process that acknowledged it), the relay, retries and
 * dead letters, the lookup reservation shared by workers, merchant events, metrics and logs.
 *
 * A second route, /ipn/stored, is what the api alone must do, for the api-alone ramp: store and
 * acknowledge after the commit, with the api's batching of the INSERTs, and nothing more.
 *
 * Started by bench/ipn-load.ts with PORT, DATABASE_URL (migrated by the api), GATEWAY_URL,
 * GATEWAY_TOKEN. Not part of the service.
 */
import { Agent } from 'node:http';
import Fastify from 'fastify';
import { Pool } from 'pg';
import { requiredEnv as env, serveFloor } from './floor-support';
import { call } from './processes';

const statusUrl = `${env('GATEWAY_URL')}/Transactions/GetTransactionStatus?orderTrackingId=`;
const bearer = `Bearer ${env('GATEWAY_TOKEN')}`;
const agent = new Agent({ keepAlive: true, maxSockets: 64, scheduling: 'lifo' });
const pool = new Pool({ connectionString: env('DATABASE_URL'), max: 10 });

// next_attempt_at stays null: the service's inbox relay, running beside the floor on the same
// table, never claims these rows.
const STORE = {
  name: 'floor-ipn-store',
  text: `INSERT INTO ipn_notifications (order_tracking_id, merchant_reference, notification_type,
                                        http_method, payload, status)
         VALUES ($1, $2, $3, 'POST', $4::jsonb, 'received') RETURNING id`,
};

const APPLY = {
  name: 'floor-ipn-apply',
  text: `WITH changed AS (
           UPDATE orders SET status = 'completed', confirmation_code = $2, payment_method = $3,
                             paid_amount = amount, paid_currency = currency, paid_at = now(),
                             updated_at = now(), version = version + 1
            WHERE order_tracking_id = $1 AND status = 'pending' RETURNING id),
         event AS (
           INSERT INTO order_events (order_id, type, source, from_status, to_status, actor,
                                     gateway_record, details, attempt)
           SELECT id, 'status_changed', 'ipn', 'pending', 'completed', 'gateway', $4::jsonb,
                  '{}'::jsonb, 1 FROM changed),
         applied AS (
           UPDATE ipn_notifications SET status = 'applied', processed_at = now()
            WHERE id = ANY($5::uuid[]))
         SELECT count(*)::int AS changed FROM changed`,
};

interface StatusRecord {
  status_code?: number;
  confirmation_code?: string;
  payment_method?: string;
}

async function lookUp(trackingId: string): Promise<StatusRecord> {
  const answer = await call(`${statusUrl}${encodeURIComponent(trackingId)}`, 'GET', {
    headers: { accept: 'application/json', authorization: bearer },
    agent,
    timeoutMs: 10_000,
  });
  return JSON.parse(answer.body) as StatusRecord;
}

/** Notifications waiting on an order's lookup under way: they are answered by it. */
const underWay = new Map<string, string[]>();

async function verify(trackingId: string, notificationId: string): Promise<void> {
  const joined = underWay.get(trackingId);
  if (joined) {
    joined.push(notificationId);
    return;
  }
  const answered = [notificationId];
  underWay.set(trackingId, answered);
  try {
    const record = await lookUp(trackingId);
    // Later notifications wait for the next lookup; these are the ones this one answers.
    underWay.delete(trackingId);
    if (record.status_code !== 1) return;
    await pool.query({
      ...APPLY,
      values: [
        trackingId,
        record.confirmation_code ?? null,
        record.payment_method ?? null,
        JSON.stringify(record),
        answered,
      ],
    });
  } finally {
    if (underWay.get(trackingId) === answered) underWay.delete(trackingId);
  }
}

interface Notification {
  OrderTrackingId?: unknown;
  OrderMerchantReference?: unknown;
  OrderNotificationType?: unknown;
}

/** A notification the floor can store: its tracking id and type named. */
interface Storable {
  OrderTrackingId: string;
  OrderMerchantReference?: unknown;
  OrderNotificationType: string;
}

const isStorable = (body: Notification): body is Storable =>
  typeof body.OrderTrackingId === 'string' && typeof body.OrderNotificationType === 'string';

/** The stored row's values: tracking id, merchant reference, type, payload. */
const storedValues = (body: Storable): [string, string | null, string, string] => [
  body.OrderTrackingId,
  typeof body.OrderMerchantReference === 'string' ? body.OrderMerchantReference : null,
  body.OrderNotificationType,
  JSON.stringify(body),
];

const acknowledgement = (body: Storable) => ({
  orderNotificationType: body.OrderNotificationType,
  orderTrackingId: body.OrderTrackingId,
  orderMerchantReference: body.OrderMerchantReference,
  status: 200,
});

const app = Fastify({ logger: false });

app.post('/ipn', async (req, reply) => {
  const body = req.body as Notification;
  if (!isStorable(body)) return reply.code(400).send({ status: 500 });
  const { rows } = await pool.query<{ id: string }>({ ...STORE, values: storedValues(body) });
  void verify(body.OrderTrackingId, rows[0].id).catch((error: unknown) => {
    process.stderr.write(`floor ipn: ${String(error)}\n`);
  });
  return acknowledgement(body);
});

/** Many notifications in one INSERT, one commit (the rows' ids are not needed). */
const STORE_MANY = {
  name: 'floor-ipn-store-many',
  text: `INSERT INTO ipn_notifications (order_tracking_id, merchant_reference, notification_type,
                                        http_method, payload, status)
         SELECT tracking_id, reference, type, 'POST', payload, 'received'
           FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[])
                AS n(tracking_id, reference, type, payload)`,
};

/** The api's inbox batching (ipn-inbox.ts): a 2 ms gather, at most 2 INSERTs under way, 200 rows each. */
const GATHER_MS = 2;
const MAX_WRITING = 2;
const MAX_ROWS = 200;
interface Waiting {
  values: [string, string | null, string, string];
  stored: (error?: unknown) => void;
}
let waiting: Waiting[] = [];
let writing = 0;
let gathering: NodeJS.Timeout | null = null;

function write(): void {
  gathering = null;
  while (writing < MAX_WRITING && waiting.length > 0) {
    const batch = waiting.slice(0, MAX_ROWS);
    waiting = waiting.slice(MAX_ROWS);
    writing += 1;
    pool
      .query({ ...STORE_MANY, values: [0, 1, 2, 3].map((c) => batch.map((w) => w.values[c])) })
      .then(
        () => batch.forEach((w) => w.stored()),
        (error: unknown) => batch.forEach((w) => w.stored(error)),
      )
      .finally(() => {
        writing -= 1;
        if (waiting.length > 0 && !gathering) write();
      });
  }
}

/**
 * What the api alone must do, for the api-alone ramp to set beside the bare route: store the
 * notification (batched as the api batches) and acknowledge it after the commit, nothing
 * verified (the rows stay received, never claimed: next_attempt_at is null).
 */
app.post('/ipn/stored', async (req, reply) => {
  const body = req.body as Notification;
  if (!isStorable(body)) return reply.code(400).send({ status: 500 });
  await new Promise<void>((resolve, reject) => {
    waiting.push({
      values: storedValues(body),
      stored: (error) => (error === undefined ? resolve() : reject(error as Error)),
    });
    if (writing < MAX_WRITING && !gathering) gathering = setTimeout(write, GATHER_MS);
  });
  return acknowledgement(body);
});

serveFloor(app, pool);
