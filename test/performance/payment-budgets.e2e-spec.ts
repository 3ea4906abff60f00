/**
 * Budgets that cannot regress: what one hosted checkout, one mobile-money checkout, one order
 * status read and one notification cost in statements, commits, rows written, queue commands and
 * gateway calls, each counted on its own (operation-counts.ts says how the operation's work is
 * told from the rest), and the lookups an unpaid order costs over its life (the poll schedule's,
 * checked without a service). The steady state is measured: every operation has run once before
 * (the gateway token is fetched, the IPN URL registered, the connections open). The budgets are bench/operation-budgets.ts, which
 * docs/benchmarks.md shows; a count above its budget fails, and so does one below it, so that the
 * table stays exact.
 */
import { Queue } from 'bullmq';
import { loadServiceConfig } from '@app/config';
import { lookupsUntilHorizon } from '@app/domain';
import { IpnNotificationEntity, OrderEntity, OutboxEventEntity } from '@app/persistence';
import { JOB_SCHEDULES, queueConnectionFor, QUEUES } from '@app/queues';
import {
  BudgetedOperation,
  OPERATION_BUDGETS,
  OperationBudget,
  QueueBackendName,
  UNPAID_ORDER_LOOKUPS_BUDGET,
  UNPAID_ORDER_LOOKUPS_GOAL,
} from '../../bench/operation-budgets';
import { getOrder, hostedBody, NO_ANSWER_PHONE, postCheckout, pushBody } from '../checkout/support';
import { notify } from '../ipn/ipn-support';
import { waitFor } from '../support/service';
import { startWorkerSuite, WorkerSuite } from '../support/worker-suite';
import {
  countOperation,
  installOperationCounters,
  observe,
  OperationCounts,
} from './operation-counts';

const backend = (
  process.env.QUEUE_BACKEND === 'postgres' ? 'postgres' : 'redis'
) as QueueBackendName;
const budgets = OPERATION_BUDGETS[backend];

/** Each count against its budget: above is a regression, below a budget to lower. */
function departures(operation: BudgetedOperation, counts: OperationCounts): string[] {
  const budget: OperationBudget = budgets[operation];
  const pairs: [string, number, number][] = [
    ['statements', counts.statements, budget.statements],
    ['commits', counts.commits, budget.commits],
    ['rows written', counts.rowsWritten, budget.rowsWritten],
    [
      backend === 'redis' ? 'Redis commands' : 'queue statements',
      counts.queueCommands,
      budget.queueCommands,
    ],
  ];
  const endpoints = new Set([
    ...Object.keys(counts.gatewayCalls),
    ...Object.keys(budget.gatewayCalls),
  ]);
  for (const endpoint of endpoints) {
    pairs.push([
      `${endpoint} calls`,
      counts.gatewayCalls[endpoint] ?? 0,
      budget.gatewayCalls[endpoint] ?? 0,
    ]);
  }
  return pairs.flatMap(([what, count, allowed]) => {
    if (count > allowed) return [`${operation}: ${what} ${count}, over its budget of ${allowed}`];
    if (count < allowed)
      return [
        `${operation}: ${what} ${count}, under its budget of ${allowed}: lower the budget in bench/operation-budgets.ts (${backend})`,
      ];
    return [];
  });
}

describe(`payment budgets (queues on ${backend})`, () => {
  let suite: WorkerSuite;
  let notifications: Queue;

  beforeAll(async () => {
    installOperationCounters();
    suite = await startWorkerSuite({
      ownDatabase: 'budgets',
      env: {
        // No poll falls due while the suite runs; the unpaid life is computed from the schedule.
        POLL_SCHEDULE_SECONDS: '3600',
        SWEEP_INTERVAL_MS: '3600000',
        // The shop's window is counted a lease at a time (one store round trip per up to 100
        // requests, whenever the minute turns): no cost of one request, and not the same twice.
        RATE_LIMIT_SHOP_PER_MINUTE: '0',
      },
    });
    notifications = new Queue(QUEUES.notificationBatches, {
      connection: queueConnectionFor(loadServiceConfig()),
      prefix: process.env.QUEUE_PREFIX,
    });
    // The housekeeping schedules (the overview's minute job, retention) are not a payment's work.
    const schedules = Object.keys(JOB_SCHEDULES);
    await waitFor('the housekeeping schedules', async () =>
      (await suite.queue.getJobSchedulers()).length === schedules.length ? true : null,
    );
    for (const schedule of schedules) await suite.queue.removeJobScheduler(schedule);
    // The gateway's own notifications are dropped: the test sends the one it measures.
    await suite.service.sandbox.control.notifications('drop');
  }, 60_000);

  afterAll(async () => {
    await notifications?.close();
    await suite?.close();
  });

  async function hostedCheckout(): Promise<{ reference: string; trackingId: string }> {
    const body = hostedBody();
    const created = await postCheckout(suite.service, body);
    expect(created.status).toBe(201);
    return { reference: String(body.reference), trackingId: created.body.order_tracking_id };
  }

  async function mobileMoneyCheckout(): Promise<void> {
    const created = await postCheckout(
      suite.service,
      pushBody({ phone: NO_ANSWER_PHONE }),
      '/v1/checkouts/mobile-money',
    );
    expect(created.status).toBe(201);
  }

  async function statusRead(reference: string): Promise<void> {
    const read = await getOrder(suite.service, reference);
    expect(read.status).toBe(200);
  }

  /** An order paid at the gateway, then its notification, until the merchant event is written. */
  async function paidOrder(): Promise<{ reference: string; trackingId: string }> {
    const order = await hostedCheckout();
    await suite.service.sandbox.control.settle(order.trackingId, 'completed', 'card');
    return order;
  }

  async function notification(order: { reference: string; trackingId: string }): Promise<void> {
    const answer = await notify(suite.service, order);
    expect(answer.status).toBe(200);
    await observe(() =>
      waitFor('the notification applied and announced, the queue idle', async () => {
        const row = await suite.dataSource
          .getRepository(OrderEntity)
          .findOneByOrFail({ merchantReference: order.reference });
        if (row.status !== 'completed') return null;
        const announced = await suite.dataSource
          .getRepository(OutboxEventEntity)
          .countBy({ orderId: row.id, type: 'order.completed' });
        const inbox = await suite.dataSource
          .getRepository(IpnNotificationEntity)
          .findBy({ orderTrackingId: order.trackingId });
        const counts = await notifications.getJobCounts('active', 'waiting', 'delayed');
        return (
          announced === 1 &&
          inbox.every((entry) => entry.status === 'applied') &&
          counts.active + counts.waiting + counts.delayed === 0
        );
      }),
    );
  }

  it('each payment operation costs exactly its budget', async () => {
    // Warm-up: each operation once, so that what is counted is the steady state.
    const read = await hostedCheckout();
    await mobileMoneyCheckout();
    await statusRead(read.reference);
    await notification(await paidOrder());
    const paid = await paidOrder();

    const measured: Record<BudgetedOperation, OperationCounts> = {
      'hosted checkout': await countOperation(suite.service, suite.dataSource, async () => {
        await hostedCheckout();
      }),
      'mobile-money checkout': await countOperation(
        suite.service,
        suite.dataSource,
        mobileMoneyCheckout,
      ),
      'order status read': await countOperation(suite.service, suite.dataSource, () =>
        statusRead(read.reference),
      ),
      notification: await countOperation(suite.service, suite.dataSource, () => notification(paid)),
    };
    const problems = (Object.keys(measured) as BudgetedOperation[]).flatMap((operation) => {
      const found = departures(operation, measured[operation]);
      // What the operation sent, to see which statement or command came or went.
      return found.length === 0
        ? []
        : [
            ...found,
            `${operation} sent: ${measured[operation].sent.join('; ')}`,
            ...measured[operation].notes.map((note) => `${operation} window: ${note}`),
          ];
    });
    expect(problems).toEqual([]);
  });
});

describe('the poll schedule, checked against its budget', () => {
  // The default deployment's horizon and schedule, without a service to boot: each lookup is a
  // GetTransactionStatus call.
  it(`the default schedule costs an unpaid order its budget of lookups over its life, at most ${UNPAID_ORDER_LOOKUPS_GOAL}`, () => {
    const { pollHorizonHours, pollScheduleSeconds } = loadServiceConfig({});
    const lookups = lookupsUntilHorizon(pollHorizonHours, pollScheduleSeconds);
    expect(lookups).toBeLessThanOrEqual(UNPAID_ORDER_LOOKUPS_GOAL);
    expect(lookups).toBe(UNPAID_ORDER_LOOKUPS_BUDGET);
  });
});
