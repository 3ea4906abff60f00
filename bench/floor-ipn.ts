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
 * acknowledge after the commit, with the api's batching of the INSERTs, and nothing more;
 * /ipn/unflushed is the same without waiting for the commit to reach disk (a trial, not a design).
 * A third, /ipn/split, is the api half of the split floor: stored as /ipn/stored, and handed in
 * the same statement to bench/floor-ipn-worker.ts, which verifies through a BullMQ queue: the
 * least the service's own design (an api that stores, a worker that verifies) must do.
 *
 * Started by bench/ipn-load.ts with PORT, DATABASE_URL (migrated by the api), GATEWAY_URL,
 * GATEWAY_TOKEN. Not part of the service.
 */
import Fastify from 'fastify';
import { Pool } from 'pg';
import { requiredEnv as env, serveFloor, wholeNumberEnv } from './floor-support';
import { SPLIT_FLOOR_CHANNEL, verifyOnce } from './floor-ipn-verify';

const pool = new Pool({ connectionString: env('DATABASE_URL'), max: 10 });

// next_attempt_at stays null: the service's inbox relay, running beside the floor on the same
// table, never claims these rows.
const STORE = {
  name: 'floor-ipn-store',
  text: `INSERT INTO ipn_notifications (order_tracking_id, merchant_reference, notification_type,
                                        http_method, payload, status)
         VALUES ($1, $2, $3, 'POST', $4::jsonb, 'received') RETURNING id`,
};

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
type StoredValues = [string, string | null, string, string];

const storedValues = (body: Storable): StoredValues => [
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
  void verifyOnce(pool, body.OrderTrackingId, [rows[0].id]).catch((error: unknown) => {
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

/**
 * Many notifications in one INSERT, one commit, and the signal the split floor's worker listens
 * for in the same statement (as the api's inbox statement hands its rows over): each row's id and
 * tracking id.
 */
const STORE_AND_SIGNAL = {
  name: 'floor-ipn-store-signal',
  text: `WITH stored AS (
           INSERT INTO ipn_notifications (order_tracking_id, merchant_reference, notification_type,
                                          http_method, payload, status)
           SELECT tracking_id, reference, type, 'POST', payload, 'received'
             FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[])
                  AS n(tracking_id, reference, type, payload)
           RETURNING id, order_tracking_id)
         SELECT pg_notify('${SPLIT_FLOOR_CHANNEL}',
                          json_agg(json_build_array(id, order_tracking_id))::text)
           FROM stored`,
};

/**
 * The api's inbox batching (ipn-inbox.ts), with the api's settings when the run sets them: a
 * gather of IPN_STORE_GATHER_MS (2 ms), at most IPN_STORE_WRITERS INSERTs under way (8), 200 rows
 * each. FLOOR_STORE_GATHER_MS, FLOOR_STORE_WRITING and FLOOR_STORE_ROWS try another batching in
 * this process only (its stored, unflushed and split routes): whether a different one would take
 * more notifications within the p99.
 */
const GATHER_MS = wholeNumberEnv('FLOOR_STORE_GATHER_MS', process.env.IPN_STORE_GATHER_MS, 2, 0);
const MAX_WRITING = wholeNumberEnv('FLOOR_STORE_WRITING', process.env.IPN_STORE_WRITERS, 8, 1);
const MAX_ROWS = wholeNumberEnv('FLOOR_STORE_ROWS', undefined, 200, 1);

/**
 * Connections of its own that commit without waiting for the WAL to reach disk, for /ipn/unflushed:
 * what the flush alone costs the acknowledgement's latency. Never a design: an acknowledged
 * notification could be lost in a crash.
 */
const unflushedPool = new Pool({
  connectionString: env('DATABASE_URL'),
  max: 10,
  options: '-c synchronous_commit=off',
});
app.addHook('onClose', async () => unflushedPool.end());

/** Stores notifications with one of the batched statements: resolves once a row is committed. */
function batchedStore(
  statement: { name: string; text: string },
  on: Pool = pool,
): (values: StoredValues) => Promise<void> {
  let waiting: { values: StoredValues; stored: (error?: unknown) => void }[] = [];
  let writing = 0;
  let gathering: NodeJS.Timeout | null = null;
  const write = (): void => {
    gathering = null;
    while (writing < MAX_WRITING && waiting.length > 0) {
      const batch = waiting.slice(0, MAX_ROWS);
      waiting = waiting.slice(MAX_ROWS);
      writing += 1;
      on.query({ ...statement, values: [0, 1, 2, 3].map((c) => batch.map((w) => w.values[c])) })
        .then(
          () => batch.forEach((w) => w.stored()),
          (error: unknown) => batch.forEach((w) => w.stored(error)),
        )
        .finally(() => {
          writing -= 1;
          if (waiting.length > 0 && !gathering) write();
        });
    }
  };
  return (values) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({
        values,
        stored: (error) => (error === undefined ? resolve() : reject(error as Error)),
      });
      if (writing < MAX_WRITING && !gathering) gathering = setTimeout(write, GATHER_MS);
    });
}

const storeOnly = batchedStore(STORE_MANY);
const storeUnflushed = batchedStore(STORE_MANY, unflushedPool);
const storeAndSignal = batchedStore(STORE_AND_SIGNAL);

/**
 * What the api alone must do, for the api-alone ramp to set beside the bare route: store the
 * notification (batched as the api batches) and acknowledge it after the commit, nothing
 * verified (the rows stay received, never claimed: next_attempt_at is null).
 */
app.post('/ipn/stored', async (req, reply) => {
  const body = req.body as Notification;
  if (!isStorable(body)) return reply.code(400).send({ status: 500 });
  await storeOnly(storedValues(body));
  return acknowledgement(body);
});

/**
 * /ipn/stored, its commit not waiting for the disk: a trial beside it in the api-alone ramp, to
 * show what of the acknowledgement's tail is the flush that storing before acknowledging needs.
 */
app.post('/ipn/unflushed', async (req, reply) => {
  const body = req.body as Notification;
  if (!isStorable(body)) return reply.code(400).send({ status: 500 });
  await storeUnflushed(storedValues(body));
  return acknowledgement(body);
});

/**
 * The split floor's api half: stored and acknowledged as /ipn/stored, and handed to the worker
 * half (bench/floor-ipn-worker.ts) by the signal in the same statement.
 */
app.post('/ipn/split', async (req, reply) => {
  const body = req.body as Notification;
  if (!isStorable(body)) return reply.code(400).send({ status: 500 });
  await storeAndSignal(storedValues(body));
  return acknowledgement(body);
});

serveFloor(app, pool);
