import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { isUuid, Money } from '@app/domain';
import {
  OrderEntity,
  OrderRepository,
  UnmatchedPaymentEntity,
  UnmatchedPaymentStatus,
} from '@app/persistence';
import { CheckoutError } from '../../errors/checkout-error';
import { newestFirstList } from '../../http/page-cursor';
import { Operator } from '../../operators/operator';
import { OrderOutcomeService } from '../../orders/order-outcome.service';
import {
  gatewayReferenceOf,
  lookupOf,
  orderHoldingReference,
  UnmatchedPaymentLedger,
} from '../unmatched-payment-ledger';
import { toUnmatchedPaymentView, UnmatchedPaymentView } from '../unmatched-payment-view';

export interface UnmatchedPaymentFilters {
  status?: UnmatchedPaymentStatus;
  limit?: number;
  cursor?: string;
}

export interface UnmatchedPaymentPage {
  items: UnmatchedPaymentView[];
  limit: number;
  next_cursor: string | null;
}

export interface MatchResult {
  unmatched_payment: UnmatchedPaymentView;
  order: { reference: string; status: string };
}

const LIST = 'admin-unmatched-payments';

/** Payments without an order for the admin: listed a cursor page at a time, matched to orders. */
@Injectable()
export class UnmatchedPaymentsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
    private readonly outcomes: OrderOutcomeService,
    private readonly ledger: UnmatchedPaymentLedger,
  ) {}

  /** Newest first, through (created_at, id) or (status, created_at, id): bounded at any size. */
  async list(filters: UnmatchedPaymentFilters): Promise<UnmatchedPaymentPage> {
    const limit = filters.limit ?? 50;
    const pages = newestFirstList(LIST, { status: filters.status }, filters.cursor);
    const query = this.dataSource.getRepository(UnmatchedPaymentEntity).createQueryBuilder('p');
    if (filters.status) query.andWhere('p.status = :status', { status: filters.status });
    const page = await pages.page(
      query,
      { alias: 'p', table: 'unmatched_payments', column: 'created_at', at: (p) => p.createdAt },
      limit,
    );
    const references = await this.orderReferences(page.rows);
    return {
      items: page.rows.map((payment) =>
        toUnmatchedPaymentView(payment, references.get(payment.orderId ?? '') ?? null),
      ),
      limit,
      next_cursor: page.next_cursor,
    };
  }

  async find(id: string): Promise<UnmatchedPaymentView> {
    const payment = isUuid(id)
      ? await this.dataSource.getRepository(UnmatchedPaymentEntity).findOneBy({ id })
      : null;
    if (!payment) throw CheckoutError.notFound('unmatched_payment', id);
    const references = await this.orderReferences([payment]);
    return toUnmatchedPaymentView(payment, references.get(payment.orderId ?? '') ?? null);
  }

  /**
   * Settles the payment onto an order of ours that it pays: same account, amount and currency,
   * not paid yet. The payment becomes the order's current attempt (the attempt it held is set
   * aside, and cancelled at the gateway if it may still take money), so later lookups, refunds
   * and their follow-ups name the payment the gateway holds; the completion goes through the
   * outcome service like any lookup's, with its timeline entry and order.completed. The
   * payment's row lock and the order's are held together: two operators cannot settle it twice.
   */
  async match(id: string, reference: string, operator: Operator): Promise<MatchResult> {
    const found = await this.orders.findByAnyReference(reference);
    if (!found) throw CheckoutError.notFound('order', reference);
    let setAside: { trackingId: string; account: string } | null = null;
    const result = await this.dataSource.transaction(async (manager) => {
      const payment = await this.ledger.lockOpen(manager, id);
      const order = await this.orders.lockById(found.id, manager);
      if (!order) throw CheckoutError.notFound('order', reference);
      refuseUnpayable(order);
      refuseMismatch(order, payment);
      const stillOpen = order.status === 'pending' ? order.orderTrackingId : null;
      if (order.orderTrackingId !== payment.orderTrackingId) {
        const gatewayReference = gatewayReferenceOf(payment, order.merchantReference);
        // Held by another order of ours (another account's: on this one the verifier would have
        // matched the payment there), lookups by it would find two orders.
        const named =
          gatewayReference === null
            ? null
            : await orderHoldingReference(manager, gatewayReference, order.id);
        if (named) {
          throw new CheckoutError(
            'reference_in_use',
            `the payment was made under reference ${gatewayReference}, which names order ${named.merchantReference} of account ${named.gatewayAccount}: it cannot settle order ${order.merchantReference} (refund the payment instead)`,
            { order: { reference: named.merchantReference, account: named.gatewayAccount } },
          );
        }
        await this.orders.setAsideCurrentAttempt(
          order,
          order.status === 'failed' ? 'failed' : 'pending',
          manager,
        );
        Object.assign(order, {
          attemptNumber: order.attemptNumber + 1,
          gatewayReference,
          attemptStartedAt: payment.paidAt ?? payment.createdAt,
          orderTrackingId: payment.orderTrackingId,
          pushMerchantReference: null,
          redirectUrl: null,
          businessNumber: null,
          pushAccountNumber: null,
        } satisfies Partial<OrderEntity>);
        await manager.getRepository(OrderEntity).save(order);
        if (stillOpen) setAside = { trackingId: stillOpen, account: order.gatewayAccount };
      }
      const outcome = await this.outcomes.applyLocked(
        manager,
        order,
        lookupOf(payment, order),
        'admin',
      );
      if (outcome.kind !== 'transitioned' || outcome.to !== 'completed') {
        // Checked above under the same locks: reaching here is a rule we did not foresee.
        throw new Error(`payment ${payment.id} did not complete order ${order.id}`);
      }
      await this.ledger.settle(manager, payment, { status: 'matched', order }, operator);
      return {
        unmatched_payment: toUnmatchedPaymentView(payment, order.merchantReference),
        order: { reference: order.merchantReference, status: order.status },
      };
    });
    if (setAside) await this.outcomes.cancelSetAside(found.id, setAside);
    return result;
  }

  private async orderReferences(payments: UnmatchedPaymentEntity[]): Promise<Map<string, string>> {
    const ids = payments.map((p) => p.orderId).filter((id): id is string => id !== null);
    if (ids.length === 0) return new Map();
    const rows = (await this.dataSource.query(
      `SELECT id, merchant_reference FROM orders WHERE id = ANY($1::uuid[])`,
      [ids],
    )) as { id: string; merchant_reference: string }[];
    return new Map(rows.map((row) => [row.id, row.merchant_reference]));
  }
}

/** Only an order not paid yet, and still open to a payment, takes one. */
function refuseUnpayable(order: OrderEntity): void {
  if (order.status === 'completed' || order.status === 'reversed') {
    throw new CheckoutError(
      'order_paid',
      `order ${order.merchantReference} is ${order.status}: it is paid already (refund the payment instead)`,
      { status: order.status },
    );
  }
  if (order.status !== 'pending' && order.status !== 'failed') {
    throw new CheckoutError(
      'order_closed',
      `order ${order.merchantReference} is ${order.status}: it takes no payment (refund the payment instead)`,
      { status: order.status },
    );
  }
}

/** The payment must be exactly the order's amount, in its currency, on its account. */
function refuseMismatch(order: OrderEntity, payment: UnmatchedPaymentEntity): void {
  const problems: string[] = [];
  if (order.gatewayAccount !== payment.gatewayAccount) {
    problems.push(`account: order ${order.gatewayAccount}, payment ${payment.gatewayAccount}`);
  }
  if (order.currency !== payment.currency) {
    problems.push(`currency: order ${order.currency}, payment ${payment.currency}`);
  } else if (
    !Money.of(order.amount, order.currency).equals(Money.of(payment.amount, payment.currency))
  ) {
    problems.push(`amount: order ${order.amount}, payment ${payment.amount}`);
  }
  if (problems.length === 0) return;
  throw new CheckoutError(
    'unmatched_payment_mismatch',
    `the payment does not pay order ${order.merchantReference} (${problems.join('; ')})`,
    {
      order: {
        reference: order.merchantReference,
        amount: order.amount,
        currency: order.currency,
        account: order.gatewayAccount,
      },
      payment: {
        amount: payment.amount,
        currency: payment.currency,
        account: payment.gatewayAccount,
      },
    },
  );
}
