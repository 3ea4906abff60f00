/**
 * The split floor's worker half, for bench:ipn to measure beside the service: what the service's
 * worker must at least do with what its api stored, with no framework. It listens for the api
 * half's signal (bench/floor-ipn.ts /ipn/split), gathers the handed-over rows as the service's
 * relay does (up to 100 ms, or until a job's worth has come), queues them on a BullMQ queue 100 to
 * a job, and its BullMQ worker verifies them as the floor does (bench/floor-ipn-verify.ts: one
 * lookup per order at a time, a completion applied once with the rows it answers). No relay
 * claims, retries, dead letters, throttle, merchant events, metrics or logs.
 *
 * Started by bench/ipn-load.ts with PORT (its health route), DATABASE_URL, REDIS_URL,
 * QUEUE_PREFIX, GATEWAY_URL, GATEWAY_TOKEN. Not part of the service.
 */
import { createServer } from 'node:http';
import { Queue, Worker } from 'bullmq';
import { Client, Pool } from 'pg';
import { requiredEnv as env } from './floor-support';
import { SPLIT_FLOOR_CHANNEL, verifyOnce } from './floor-ipn-verify';

const ROWS_PER_JOB = 100;
const GATHER_MS = 100;
const QUEUE = 'floor-verify';

const pool = new Pool({ connectionString: env('DATABASE_URL'), max: 10 });
const connection = { url: env('REDIS_URL') };
const prefix = env('QUEUE_PREFIX');
const queue = new Queue(QUEUE, { connection, prefix });

/** Rows handed over: [id, tracking id]. */
type Row = [string, string];
let handedOver: Row[] = [];
let gathering: NodeJS.Timeout | null = null;

function queueHandedOver(): void {
  gathering = null;
  const rows = handedOver;
  handedOver = [];
  const jobs = [];
  for (let start = 0; start < rows.length; start += ROWS_PER_JOB) {
    jobs.push({
      name: 'verify',
      data: { rows: rows.slice(start, start + ROWS_PER_JOB) },
      opts: { removeOnComplete: true, removeOnFail: true },
    });
  }
  queue.addBulk(jobs).catch((error: unknown) => process.stderr.write(`${String(error)}\n`));
}

const listener = new Client({ connectionString: env('DATABASE_URL') });
listener.on('notification', (message) => {
  handedOver.push(...(JSON.parse(message.payload ?? '[]') as Row[]));
  if (handedOver.length >= ROWS_PER_JOB) {
    if (gathering) clearTimeout(gathering);
    queueHandedOver();
    return;
  }
  gathering ??= setTimeout(queueHandedOver, GATHER_MS);
});

const worker = new Worker(
  QUEUE,
  async (job) => {
    const byOrder = new Map<string, string[]>();
    for (const [id, trackingId] of job.data.rows as Row[]) {
      byOrder.set(trackingId, [...(byOrder.get(trackingId) ?? []), id]);
    }
    await Promise.all([...byOrder].map(([trackingId, ids]) => verifyOnce(pool, trackingId, ids)));
  },
  { connection, prefix, concurrency: 4 },
);

const health = createServer((_request, response) => response.end('{"status":"ok"}'));

void (async () => {
  await listener.connect();
  await listener.query(`LISTEN ${SPLIT_FLOOR_CHANNEL}`);
  await worker.waitUntilReady();
  health.listen(Number(env('PORT')), '127.0.0.1');
})().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});

process.on('SIGTERM', () => {
  health.close();
  void Promise.all([worker.close(), queue.close(), listener.end()]).then(() => pool.end());
});
