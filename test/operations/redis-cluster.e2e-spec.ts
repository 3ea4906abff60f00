import { QUEUE_NAMES } from '@app/queues';
import {
  getOrder,
  NO_ANSWER_PHONE,
  payAndRefund,
  postCheckout,
  pushBody,
} from '../checkout/support';
import { ownTestDatabase } from '../support/database';
import {
  LocalRedisCluster,
  redisServerInstalled,
  startRedisCluster,
} from '../support/redis-servers';
import { RunningService, startService, waitFor } from '../support/service';
import { currentTestRun } from '../support/test-servers';

/**
 * The service on a real Redis Cluster: three masters from the machine's redis-server, made for
 * this suite on ports of its own and removed afterwards. It runs in both passes of the suite (the
 * cluster is this file's own, loopback only). Queues, the gateway token, lookup reservations and
 * rate windows all live on the cluster; the main flow runs on it.
 */
describe('on a Redis Cluster of three masters', () => {
  let cluster: LocalRedisCluster;
  let database: Awaited<ReturnType<typeof ownTestDatabase>>;
  let service: RunningService;
  let prefix = `${currentTestRun().queuePrefix}_cluster`;

  /**
   * A prefix whose queues' hash tags fall on more than one master (with a random run id, all four
   * landed on one master in about one run in thirty), so the spread is checked, not chanced.
   */
  async function spreadingPrefix(base: string): Promise<string> {
    const [master] = await cluster.masters();
    const ranges = (await master.cluster('SLOTS')) as [number, number][];
    const ownerOf = (slot: number) => ranges.findIndex(([from, to]) => slot >= from && slot <= to);
    for (let n = 0; n < 100; n += 1) {
      const candidate = `${base}${n}`;
      const owners = await Promise.all(
        QUEUE_NAMES.map(async (queue) =>
          ownerOf(Number(await master.cluster('KEYSLOT', `{${candidate}:${queue}}`))),
        ),
      );
      if (new Set(owners).size > 1) return candidate;
    }
    throw new Error('no prefix spreads the queues over the masters');
  }

  beforeAll(async () => {
    if (!redisServerInstalled()) {
      throw new Error('redis-server and redis-cli not found: apt-get install -y redis-server');
    }
    cluster = await startRedisCluster(3);
    prefix = await spreadingPrefix(prefix);
    database = await ownTestDatabase('cluster');
    service = await startService({
      worker: true,
      env: {
        DATABASE_URL: database.url,
        QUEUE_BACKEND: 'redis',
        REDIS_URL: 'redis://127.0.0.1:1',
        REDIS_CLUSTER_NODES: cluster.nodes.join(','),
        QUEUE_PREFIX: prefix,
      },
    });
  }, 90_000);

  afterAll(async () => {
    await service?.close();
    await database?.drop();
    await cluster?.stop();
  });

  /** Every key of the cluster, with the master holding it. */
  async function keysByMaster(): Promise<string[][]> {
    const masters = await cluster.masters();
    return Promise.all(masters.map((master) => master.keys('*')));
  }

  it('takes a hosted checkout to completed through the worker and refunds it', () =>
    payAndRefund(service, 'cluster e2e'));

  it('reconciles a mobile-money push through the queues on the cluster', async () => {
    const body = pushBody({ phone: NO_ANSWER_PHONE });
    const created = await postCheckout(service, body, '/v1/checkouts/mobile-money');
    expect(created.status).toBe(201);
    await service.sandbox.control.settle(
      created.body.order_tracking_id,
      'completed',
      'mobile_money',
    );
    await waitFor(
      'the push order completed',
      async () =>
        (await getOrder(service, String(body.reference))).body.status === 'completed' || null,
      20_000,
    );
  });

  it('keeps each queue in one hash slot, spread over the masters, and shares the token there', async () => {
    const byMaster = await keysByMaster();
    const masters = await cluster.masters();
    const queueKeys = byMaster.flat().filter((key) => key.startsWith(`{${prefix}:`));
    const queues = new Set(queueKeys.map((key) => key.slice(0, key.indexOf('}') + 1)));
    expect(queues).toEqual(
      new Set([
        `{${prefix}:notification-batches}`,
        `{${prefix}:notifications}`,
        `{${prefix}:order-sync}`,
        `{${prefix}:ipn-registration}`,
        `{${prefix}:reconciliation}`,
      ]),
    );
    for (const tag of queues) {
      const slots = new Set(
        await Promise.all(
          queueKeys
            .filter((key) => key.startsWith(tag))
            .map((key) => masters[0].cluster('KEYSLOT', key)),
        ),
      );
      expect({ tag, slots: slots.size }).toEqual({ tag, slots: 1 });
    }
    const mastersWithQueues = byMaster.filter((keys) =>
      keys.some((key) => key.startsWith(`{${prefix}:`)),
    );
    expect(mastersWithQueues.length).toBeGreaterThan(1);
    // One gateway token for the api and the worker, kept on the cluster.
    expect(
      byMaster.flat().filter((key) => key.startsWith(`${prefix}:gateway-token:`)),
    ).toHaveLength(1);
  });
});
