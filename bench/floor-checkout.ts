/**
 * The floor under a checkout, for bench:checkout to measure beside the service: the least an
 * integration must do for one hosted checkout, in one process with no framework. One Fastify
 * route checks the shop key and the body's fields by hand, records the order with its `created`
 * event (one statement), creates the order at the gateway on a kept-alive connection, records
 * the tracking id with its `submitted` event (a second statement), and answers the redirect URL.
 * The same tables, rows and round trips as the service's checkout; none of what the service adds
 * around them (guards, the rate window in Redis, validation and transformation by decorators, the
 * gateway client's retries and parsing, logging, metrics, idempotency, the reference's twin).
 *
 * Started by bench/checkout-load.ts with: PORT, DATABASE_URL (migrated by the api), GATEWAY_URL,
 * GATEWAY_TOKEN, IPN_ID, SHOP_KEY, CALLBACK_URL, and the api's DATABASE_POOL_SIZE when the run
 * sets one. Not part of the service.
 */
import { Agent } from 'node:http';
import Fastify from 'fastify';
import { Pool } from 'pg';
import { requiredEnv as env, serveFloor, wholeNumberEnv } from './floor-support';
import { call } from './processes';

const gateway = `${env('GATEWAY_URL')}/Transactions/SubmitOrderRequest`;
const bearer = `Bearer ${env('GATEWAY_TOKEN')}`;
const shopKey = `Bearer ${env('SHOP_KEY')}`;
const ipnId = env('IPN_ID');
const callbackUrl = env('CALLBACK_URL');
const agent = new Agent({ keepAlive: true, maxSockets: 128, scheduling: 'lifo' });
/**
 * As many connections as the api keeps (DATABASE_POOL_SIZE, 20 by default), so both queue their
 * statements alike: with fewer, 16 checkouts at once would wait in this process's pool instead of
 * running as backends beside each other on the shared cores.
 */
const pool = new Pool({
  connectionString: env('DATABASE_URL'),
  max: wholeNumberEnv('DATABASE_POOL_SIZE', undefined, 20, 1),
});

const RECORD = {
  name: 'floor-record',
  text: `WITH changed AS (
           INSERT INTO orders (merchant_reference, kind, amount, currency, description, customer,
                               customer_email, next_poll_at, status, submission_status, version)
           VALUES ($1, 'hosted', $2, $3, $4, $5::jsonb, $6, now() + interval '5 minutes',
                   'pending', 'submitting', 1)
           RETURNING id),
         event AS (
           INSERT INTO order_events (order_id, type, source, to_status, actor, details, attempt)
           SELECT id, 'created', 'api', 'pending', 'bench', '{}'::jsonb, 1 FROM changed)
         SELECT id FROM changed`,
};

const COMPLETE = {
  name: 'floor-complete',
  text: `WITH changed AS (
           UPDATE orders SET order_tracking_id = $2, redirect_url = $3,
                             submission_status = 'submitted', updated_at = now(),
                             version = version + 1
            WHERE id = $1 RETURNING id),
         event AS (
           INSERT INTO order_events (order_id, type, source, actor, details, attempt)
           SELECT id, 'submitted', 'api', 'bench', '{}'::jsonb, 1 FROM changed)
         SELECT id FROM changed`,
};

interface CheckoutBody {
  amount?: unknown;
  currency?: unknown;
  description?: unknown;
  reference?: unknown;
  customer?: { email?: unknown };
}

/** SubmitOrderRequest; the tracking id and redirect URL of the order it created. */
async function submitOrder(
  body: string,
): Promise<{ order_tracking_id: string; redirect_url: string }> {
  const answer = await call(gateway, 'POST', {
    headers: {
      accept: 'application/json',
      'content-type': 'application/json',
      authorization: bearer,
    },
    body,
    agent,
    timeoutMs: 10_000,
  });
  const order = JSON.parse(answer.body) as { order_tracking_id?: string; redirect_url?: string };
  if (!order.order_tracking_id || !order.redirect_url)
    throw new Error('the gateway created no order');
  return { order_tracking_id: order.order_tracking_id, redirect_url: order.redirect_url };
}

const app = Fastify({ logger: false });

app.post('/v1/checkouts', async (req, reply) => {
  if (req.headers.authorization !== shopKey) return reply.code(401).send({ error: 'unauthorised' });
  const body = req.body as CheckoutBody;
  const email = body.customer?.email;
  if (
    typeof body.amount !== 'string' ||
    !/^\d{1,13}(\.\d{1,2})?$/.test(body.amount) ||
    typeof body.currency !== 'string' ||
    typeof body.description !== 'string' ||
    typeof body.reference !== 'string' ||
    typeof email !== 'string'
  ) {
    return reply.code(400).send({ error: 'invalid checkout' });
  }
  const { rows } = await pool.query<{ id: string }>({
    ...RECORD,
    values: [
      body.reference,
      body.amount,
      body.currency,
      body.description,
      JSON.stringify({ email }),
      email,
    ],
  });
  const order = await submitOrder(
    `{"id":${JSON.stringify(body.reference)},"currency":${JSON.stringify(body.currency)},` +
      `"amount":${body.amount},"description":${JSON.stringify(body.description)},` +
      `"callback_url":${JSON.stringify(callbackUrl)},"notification_id":${JSON.stringify(ipnId)},` +
      `"billing_address":{"email_address":${JSON.stringify(email)}}}`,
  );
  await pool.query({
    ...COMPLETE,
    values: [rows[0].id, order.order_tracking_id, order.redirect_url],
  });
  return reply.code(201).send({
    reference: body.reference,
    order_tracking_id: order.order_tracking_id,
    redirect_url: order.redirect_url,
    status: 'pending',
  });
});

serveFloor(app, pool);
