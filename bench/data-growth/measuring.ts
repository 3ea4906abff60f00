/** The calls measured on each database (medians) and the idle CPU of the processes. */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { encodeCursor } from '../../libs/checkout/src/http/page-cursor';
import { cpuMs, groupCpuMs } from '../counters';
import { call, sleep } from '../processes';
import { Made } from './orders';
import { ADMIN, CALLS, IDLE_SECONDS, round, SHOP } from './settings';

/** The median of CALLS timed calls (after one untimed), in ms; a non-2xx answer is an error. */
async function median(url: string, headers: Record<string, string>, make?: () => unknown) {
  const once = async () => {
    const body = make?.();
    const t = performance.now();
    const answer = await call(url, body === undefined ? 'GET' : 'POST', { headers, body });
    const took = performance.now() - t;
    if (answer.status >= 300) throw new Error(`${url}: ${answer.status} ${answer.body}`);
    return took;
  };
  await once();
  const times: number[] = [];
  for (let i = 0; i < CALLS; i += 1) times.push(await once());
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

export interface Probe {
  name: string;
  ms: number;
}

/** The calls measured, on both databases: the shop's, the admin's, and the worker's scrape. */
export async function probesFor(db: Client, api: string, made: Made) {
  const { rows: deep } = await db.query(
    `SELECT id, created_at FROM orders ORDER BY created_at DESC, id DESC OFFSET 10000 LIMIT 1`,
  );
  const { rows: newest } = await db.query(
    `SELECT id, created_at FROM orders ORDER BY created_at DESC, id DESC LIMIT 1`,
  );
  const position = (deep[0] ?? newest[0]) as { id: string; created_at: Date };
  const cursor = encodeCursor('admin-orders', {}, { at: position.created_at, id: position.id });
  const yesterday = new Date(Date.now() - 86_400_000).toISOString();
  const reference = made.references[1];
  let sequence = 0;
  const stamp = randomBytes(3).toString('hex');
  return [
    {
      name: 'POST /v1/checkouts',
      url: `${api}/v1/checkouts`,
      headers: SHOP,
      make: () => ({
        amount: '1500.00',
        currency: 'KES',
        description: 'bench',
        reference: `probe-${stamp}-${(sequence += 1)}`,
        customer: { email: 'probe@example.com' },
      }),
    },
    { name: 'GET /v1/orders/:reference', url: `${api}/v1/orders/${reference}`, headers: SHOP },
    { name: 'admin orders ?limit=50', url: `${api}/v1/admin/orders?limit=50`, headers: ADMIN },
    {
      name: 'admin orders ?status=completed',
      url: `${api}/v1/admin/orders?status=completed`,
      headers: ADMIN,
    },
    {
      name: 'admin orders ?currency=UGX',
      url: `${api}/v1/admin/orders?currency=UGX`,
      headers: ADMIN,
    },
    {
      name: 'admin orders ?status=failed&currency=UGX',
      url: `${api}/v1/admin/orders?status=failed&currency=UGX`,
      headers: ADMIN,
    },
    {
      name: 'admin orders ?q=<customer email>',
      url: `${api}/v1/admin/orders?q=${encodeURIComponent(made.emails[2].toUpperCase())}`,
      headers: ADMIN,
    },
    {
      name: 'admin orders ?q=<reference>',
      url: `${api}/v1/admin/orders?q=${reference}`,
      headers: ADMIN,
    },
    {
      name: 'admin orders ?q=<phone>',
      url: `${api}/v1/admin/orders?q=${encodeURIComponent('0700 000 003')}`,
      headers: ADMIN,
    },
    {
      name: 'admin orders ?cursor=<10,000 rows in>',
      url: `${api}/v1/admin/orders?cursor=${cursor}`,
      headers: ADMIN,
    },
    {
      name: 'admin orders ?from=<yesterday>',
      url: `${api}/v1/admin/orders?from=${yesterday}`,
      headers: ADMIN,
    },
    { name: 'admin orders/stuck', url: `${api}/v1/admin/orders/stuck`, headers: ADMIN },
    { name: 'admin orders/:reference', url: `${api}/v1/admin/orders/${reference}`, headers: ADMIN },
    { name: 'admin refunds', url: `${api}/v1/admin/refunds`, headers: ADMIN },
    {
      name: 'admin refunds ?status=accepted&currency=KES',
      url: `${api}/v1/admin/refunds?status=accepted&currency=KES`,
      headers: ADMIN,
    },
    {
      name: 'admin events ?type=order.completed',
      url: `${api}/v1/admin/events?type=order.completed`,
      headers: ADMIN,
    },
    {
      name: 'admin events ?order=<reference>',
      url: `${api}/v1/admin/events?order=${reference}`,
      headers: ADMIN,
    },
    { name: 'admin events', url: `${api}/v1/admin/events`, headers: ADMIN },
    {
      name: 'admin events ?delivered=false',
      url: `${api}/v1/admin/events?delivered=false`,
      headers: ADMIN,
    },
    { name: 'admin notifications', url: `${api}/v1/admin/notifications`, headers: ADMIN },
    {
      name: 'admin notifications ?status=failed',
      url: `${api}/v1/admin/notifications?status=failed`,
      headers: ADMIN,
    },
    ...(['hour', 'day', 'month'] as const).map((window) => ({
      name: `${OVERVIEW} ?window=${window}`,
      url: `${api}/v1/admin/overview?window=${window}`,
      headers: ADMIN,
    })),
  ];
}

export const OVERVIEW = 'admin overview';
/** The console's overview must answer within this on the large database (issue: the console). */
export const OVERVIEW_TARGET_MS = 100;

export async function measure(
  probes: Awaited<ReturnType<typeof probesFor>>,
  worker: string,
): Promise<Probe[]> {
  const measured: Probe[] = [];
  for (const probe of probes) {
    measured.push({ name: probe.name, ms: await median(probe.url, probe.headers, probe.make) });
  }
  measured.push({ name: 'worker GET /metrics', ms: await median(`${worker}/metrics`, {}) });
  return measured;
}

/** CPU ms per minute of the api, the worker and PostgreSQL while nothing is asked of them. */
export async function idleCpu(apiPid: number, workerPid: number) {
  const before = { api: cpuMs(apiPid), worker: cpuMs(workerPid), postgres: groupCpuMs('postgres') };
  await sleep(IDLE_SECONDS * 1000);
  const perMinute = (a: number, b: number) => round(((b - a) * 60) / IDLE_SECONDS);
  return {
    api: perMinute(before.api, cpuMs(apiPid)),
    worker: perMinute(before.worker, cpuMs(workerPid)),
    postgres: perMinute(before.postgres, groupCpuMs('postgres')),
  };
}
