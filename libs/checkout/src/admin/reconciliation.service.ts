import { Inject, Injectable, Logger } from '@nestjs/common';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { Brackets, DataSource, In } from 'typeorm';
import { cutText, isUuid, MerchantReference, OrderTrackingId } from '@app/domain';
import { GatewayAccounts, TransactionLookup } from '@app/gateway-client';
import { OrderEntity, PaymentAttemptEntity, ReconciliationReportEntity } from '@app/persistence';
import { CheckoutError } from '../errors/checkout-error';
import { ATTEMPTS_PER_ORDER_LIMIT } from '../orders/order-view';
import {
  compareAttemptWithGateway,
  compareWithGateway,
  GatewayMismatch,
  MISMATCH_PROBLEM_MAX_LENGTH,
} from './gateway-comparison';
import {
  findInvariantViolations,
  InvariantViolations,
  violationCount,
} from './reconciliation-invariants';

/** A bound on one run's gateway traffic; the report says when it was reached. */
export const MAX_ORDERS = 1000;
/**
 * The most lookups one run makes: each order and each of its earlier attempts (an order has at
 * most ATTEMPTS_PER_ORDER_LIMIT in all). Each adds at most one gateway mismatch or one lookup
 * failure to the report.
 */
export const MAX_LOOKUPS = MAX_ORDERS * ATTEMPTS_PER_ORDER_LIMIT;
/** The longest lookup error a report keeps (the error's message; it may quote the gateway). */
export const LOOKUP_ERROR_MAX_LENGTH = 500;
/** How many reports GET /v1/admin/reconciliation-reports lists. */
export const LATEST_REPORTS = 20;
/** What started a run: the nightly job, or an admin's POST /v1/admin/reconcile. */
export const RECONCILIATION_TRIGGERS = ['nightly', 'admin'] as const;
export type ReconciliationTrigger = (typeof RECONCILIATION_TRIGGERS)[number];
const CONCURRENT_LOOKUPS = 4;

export interface ReconciliationReport {
  id: string;
  trigger: string;
  requested_by: string | null;
  since_hours: number;
  started_at: string;
  finished_at: string;
  orders_checked: number;
  mismatch_count: number;
  truncated: boolean;
  gateway_mismatches: GatewayMismatch[];
  invariant_violations: InvariantViolations;
  lookup_failures: { reference: string; error: string }[];
  /** Payments without an order still open when the run ended; null in reports from before. */
  unmatched_payments: UnmatchedPaymentsOpen | null;
}

/** Open payments without an order: how many, and their money per currency (exact sums). */
export interface UnmatchedPaymentsOpen {
  open: number;
  by_currency: { currency: string; count: number; amount: string }[];
}

/** ISO 4217 has fewer codes than this: a bound on the per-currency list. */
export const CURRENCY_CODES_MAX = 200;

/**
 * Re-checks recent orders against the gateway and runs the invariant queries. It reports every
 * difference with both sides and changes nothing: repairing is a person's decision (an admin sync
 * applies a lookup through the normal, audited path).
 */
@Injectable()
export class ReconciliationService {
  private readonly logger = new Logger(ReconciliationService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly accounts: GatewayAccounts,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async run(
    trigger: ReconciliationTrigger,
    sinceHours: number,
    requestedBy: string | null = null,
  ): Promise<ReconciliationReport> {
    const startedAt = new Date();
    const since = new Date(startedAt.getTime() - sinceHours * 3600_000);
    const orders = await this.dataSource
      .getRepository(OrderEntity)
      .createQueryBuilder('o')
      .where(
        new Brackets((w) =>
          w.where('o.created_at >= :since', { since }).orWhere('o.updated_at >= :since'),
        ),
      )
      .andWhere(`o.submission_status <> 'rejected'`)
      .orderBy('o.created_at', 'DESC')
      .take(MAX_ORDERS + 1)
      .getMany();
    const truncated = orders.length > MAX_ORDERS;
    const checked = orders.slice(0, MAX_ORDERS);
    // Earlier payment attempts of those orders too: a late payment whose notification was lost.
    const byId = new Map(checked.map((order) => [order.id, order]));
    const attempts =
      checked.length === 0
        ? []
        : await this.dataSource.getRepository(PaymentAttemptEntity).find({
            where: { orderId: In([...byId.keys()]) },
            order: { number: 'ASC' },
          });

    const mismatches: GatewayMismatch[] = [];
    const failures: { reference: string; error: string }[] = [];
    await inBatches(checked, CONCURRENT_LOOKUPS, async (order) => {
      try {
        const difference = compareWithGateway(order, await this.lookup(order));
        if (difference) mismatches.push(difference);
      } catch (error) {
        failures.push({ reference: order.merchantReference, error: lookupError(error) });
      }
    });
    const lookedUp = attempts.filter((attempt) => attempt.orderTrackingId !== null);
    await inBatches(lookedUp, CONCURRENT_LOOKUPS, async (attempt) => {
      const order = byId.get(attempt.orderId)!;
      try {
        const lookup = await this.accounts
          .forOrder(order)
          .getTransactionStatus(attempt.orderTrackingId as OrderTrackingId);
        const difference = compareAttemptWithGateway(order, attempt, lookup);
        if (difference) mismatches.push(difference);
      } catch (error) {
        failures.push({
          reference: `${order.merchantReference} (attempt ${attempt.number})`,
          error: lookupError(error),
        });
      }
    });
    const eventsKeptDays = this.config.retention.merchantEventsDays;
    const violations = await findInvariantViolations(this.dataSource, {
      since,
      outboxSince:
        eventsKeptDays > 0
          ? new Date(Math.max(since.getTime(), startedAt.getTime() - eventsKeptDays * 86_400_000))
          : since,
    });
    const mismatchCount = mismatches.length + violationCount(violations);
    const unmatched = await this.openUnmatchedPayments();

    const reports = this.dataSource.getRepository(ReconciliationReportEntity);
    const saved = await reports.save(
      reports.create({
        trigger,
        requestedBy,
        sinceHours,
        startedAt,
        finishedAt: new Date(),
        ordersChecked: checked.length,
        mismatchCount,
        findings: {
          truncated,
          gateway_mismatches: mismatches,
          invariant_violations: violations,
          lookup_failures: failures,
          unmatched_payments: unmatched,
        },
      }),
    );
    const report = toReport(saved);
    const log = { reportId: report.id, trigger, ordersChecked: checked.length, mismatchCount };
    if (mismatchCount > 0 || failures.length > 0 || unmatched.open > 0) {
      this.logger.warn(
        { ...log, lookupFailures: failures.length, unmatchedPayments: unmatched.open },
        'reconciliation found differences',
      );
    } else {
      this.logger.log(log, 'reconciliation clean');
    }
    return report;
  }

  async latest(limit = LATEST_REPORTS): Promise<ReconciliationReport[]> {
    const rows = await this.dataSource
      .getRepository(ReconciliationReportEntity)
      .find({ order: { startedAt: 'DESC' }, take: limit });
    return rows.map(toReport);
  }

  async get(id: string): Promise<ReconciliationReport> {
    const row = isUuid(id)
      ? await this.dataSource.getRepository(ReconciliationReportEntity).findOneBy({ id })
      : null;
    if (!row) throw CheckoutError.notFound('reconciliation_report', id);
    return toReport(row);
  }

  /**
   * Money received for no order of ours, not settled yet (they are not differences of an order,
   * so not in mismatch_count): read through the (status, created_at, id) index.
   */
  private async openUnmatchedPayments(): Promise<UnmatchedPaymentsOpen> {
    const rows = (await this.dataSource.query(
      `SELECT currency, count(*)::int AS count, sum(amount)::text AS amount
         FROM unmatched_payments WHERE status = 'open'
        GROUP BY currency ORDER BY currency`,
    )) as { currency: string; count: number; amount: string }[];
    return {
      open: rows.reduce((total, row) => total + row.count, 0),
      by_currency: rows.slice(0, CURRENCY_CODES_MAX),
    };
  }

  private lookup(order: OrderEntity): Promise<TransactionLookup> {
    return order.orderTrackingId
      ? this.accounts.forOrder(order).getTransactionStatus(order.orderTrackingId as OrderTrackingId)
      : this.accounts
          .forOrder(order)
          .getTransactionByMerchantReference(
            (order.gatewayReference ?? order.merchantReference) as MerchantReference,
          );
  }
}

function toReport(row: ReconciliationReportEntity): ReconciliationReport {
  const findings = row.findings as {
    truncated: boolean;
    gateway_mismatches: GatewayMismatch[];
    invariant_violations: InvariantViolations;
    lookup_failures: { reference: string; error: string }[];
    unmatched_payments?: UnmatchedPaymentsOpen;
  };
  return {
    id: row.id,
    trigger: row.trigger,
    requested_by: row.requestedBy,
    since_hours: row.sinceHours,
    started_at: row.startedAt.toISOString(),
    finished_at: row.finishedAt.toISOString(),
    orders_checked: row.ordersChecked,
    mismatch_count: row.mismatchCount,
    ...findings,
    unmatched_payments: findings.unmatched_payments ?? null,
    // Reports stored before their texts were cut are cut here, to the bounds the answer declares.
    gateway_mismatches: findings.gateway_mismatches.map((mismatch) => ({
      ...mismatch,
      problem: cutText(mismatch.problem, MISMATCH_PROBLEM_MAX_LENGTH),
    })),
    lookup_failures: findings.lookup_failures.map((failure) => ({
      ...failure,
      error: cutText(failure.error, LOOKUP_ERROR_MAX_LENGTH),
    })),
  };
}

function lookupError(error: unknown): string {
  return cutText(error instanceof Error ? error.message : String(error), LOOKUP_ERROR_MAX_LENGTH);
}

async function inBatches<T>(items: T[], width: number, run: (item: T) => Promise<void>) {
  let next = 0;
  const lanes = Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) await run(items[next++]);
  });
  await Promise.all(lanes);
}
