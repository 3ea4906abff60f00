/**
 * What both notification floors (bench/floor-ipn.ts in one process, bench/floor-ipn-worker.ts
 * beside it) do to verify: one GetTransactionStatus on a kept-alive connection, and a completion
 * applied once (the order, its timeline event and the inbox rows the lookup answered, in one
 * statement). Not part of the service.
 */
import { Agent } from 'node:http';
import type { Pool } from 'pg';
import { requiredEnv as env } from './floor-support';
import { call } from './processes';

/** The channel on which the split floor's api half hands its stored rows to the worker half. */
export const SPLIT_FLOOR_CHANNEL = 'floor_ipn_split';

const statusUrl = `${env('GATEWAY_URL')}/Transactions/GetTransactionStatus?orderTrackingId=`;
const bearer = `Bearer ${env('GATEWAY_TOKEN')}`;
const agent = new Agent({ keepAlive: true, maxSockets: 64, scheduling: 'lifo' });

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

/** A completion the lookup found, applied once with the inbox rows it answered; else nothing. */
async function applyCompletion(
  pool: Pool,
  trackingId: string,
  record: StatusRecord,
  answered: string[],
): Promise<void> {
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
}

/** Notifications waiting on an order's lookup under way: they are answered by it. */
const underWay = new Map<string, string[]>();

/**
 * Verifies these notifications of an order: they join its lookup under way, or start one and
 * apply what it finds with every notification that joined it meanwhile.
 */
export async function verifyOnce(pool: Pool, trackingId: string, ids: string[]): Promise<void> {
  const joined = underWay.get(trackingId);
  if (joined) {
    joined.push(...ids);
    return;
  }
  const answered = [...ids];
  underWay.set(trackingId, answered);
  try {
    const record = await lookUp(trackingId);
    // Later notifications wait for the next lookup; these are the ones this one answers.
    underWay.delete(trackingId);
    await applyCompletion(pool, trackingId, record, answered);
  } finally {
    if (underWay.get(trackingId) === answered) underWay.delete(trackingId);
  }
}
