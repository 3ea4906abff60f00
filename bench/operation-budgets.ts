/**
 * The work each payment operation may cost, counted (not timed) by
 * test/performance/payment-budgets.e2e-spec.ts, which fails when a count differs from its budget
 * (above: a regression; below: lower the budget here). docs/benchmarks.md shows the same table
 * (bench/report.ts). One table per queue backend: on PostgreSQL the queue's work is statements.
 */

export type QueueBackendName = 'redis' | 'postgres';

export type BudgetedOperation =
  'hosted checkout' | 'mobile-money checkout' | 'order status read' | 'notification';

export interface OperationBudget {
  /** Statements our code sends to PostgreSQL (the queue backend's apart). */
  statements: number;
  /** Transactions committed, the queue backend's included. */
  commits: number;
  /** Rows inserted, updated and deleted, the queue backend's tables included. */
  rowsWritten: number;
  /** Redis commands, or on the PostgreSQL backend the queue's statements. */
  queueCommands: number;
  /** Gateway calls by endpoint. */
  gatewayCalls: Record<string, number>;
}

/** What the notification covers: received, relayed, verified by a lookup, applied, announced. */
export const OPERATION_MEANINGS: Record<BudgetedOperation, string> = {
  'hosted checkout': 'a hosted checkout, `POST /v1/checkouts`',
  'mobile-money checkout': 'a mobile-money (push) checkout, `POST /v1/checkouts/mobile-money`',
  'order status read': 'the shop reads an order, `GET /v1/orders/:reference`',
  notification:
    'an IPN received, relayed to the queue, verified by a lookup, applied, its merchant event written',
};

/** The api's operations touch no queue: the same on either backend. */
const API_BUDGETS: Record<Exclude<BudgetedOperation, 'notification'>, OperationBudget> = {
  'hosted checkout': {
    statements: 2,
    commits: 2,
    rowsWritten: 4,
    queueCommands: 0,
    gatewayCalls: { SubmitOrderRequest: 1 },
  },
  'mobile-money checkout': {
    statements: 2,
    commits: 2,
    rowsWritten: 4,
    queueCommands: 0,
    gatewayCalls: { Stk: 1 },
  },
  'order status read': {
    statements: 1,
    commits: 1,
    rowsWritten: 0,
    queueCommands: 0,
    gatewayCalls: {},
  },
};

export const OPERATION_BUDGETS: Record<
  QueueBackendName,
  Record<BudgetedOperation, OperationBudget>
> = {
  redis: {
    ...API_BUDGETS,
    notification: {
      statements: 3,
      commits: 3,
      rowsWritten: 5,
      queueCommands: 6,
      gatewayCalls: { GetTransactionStatus: 1 },
    },
  },
  // The queue's jobs are rows here: its inserts, updates and commits count beside ours.
  postgres: {
    ...API_BUDGETS,
    notification: {
      statements: 5,
      commits: 10,
      rowsWritten: 16,
      queueCommands: 5,
      gatewayCalls: { GetTransactionStatus: 1 },
    },
  },
};

/** GetTransactionStatus calls an order nobody pays costs over its life (the goal: at most 12). */
export const UNPAID_ORDER_LOOKUPS_BUDGET = 11;
export const UNPAID_ORDER_LOOKUPS_GOAL = 12;
