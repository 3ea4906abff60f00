import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, Not } from 'typeorm';
import { DEFAULT_ACCOUNT } from '@app/config';
import {
  cutText,
  isUuid,
  MERCHANT_REFERENCE_MAX_LENGTH,
  Money,
  OrderTrackingId,
} from '@app/domain';
import { TransactionLookup, TransactionRecord } from '@app/gateway-client';
import {
  OPEN_NOTIFICATION_STATUSES_SQL,
  OrderEntity,
  UnmatchedPaymentEntity,
} from '@app/persistence';
import { CheckoutError } from '../errors/checkout-error';
import { recordCurrentAct } from '../operators/audit-trail';
import { auditActorOf, Operator, operatorLabel } from '../operators/operator';
import { OrderJournal } from '../orders/order-journal';
import { toUnmatchedPaymentView } from './unmatched-payment-view';

/**
 * Keeps a payment without an order once per (account, tracking id), whoever finds it and however
 * often, and marks applied in the same statement the notification that found it and every other
 * open one naming that tracking id (a burst's copies, whose jobs were folded into this one):
 * settled, never retried into `failed`. Found through the (tracking id, received_at) index.
 */
const KEEP = `WITH kept AS (
    INSERT INTO unmatched_payments
      (gateway_account, order_tracking_id, amount, currency, merchant_reference, payment_method,
       payment_account, confirmation_code, paid_at, gateway_record, notification_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11)
    ON CONFLICT (gateway_account, order_tracking_id) DO NOTHING
    RETURNING id)
  UPDATE ipn_notifications
     SET status = 'applied', processed_at = now(), attempts = attempts + 1,
         next_attempt_at = NULL, last_error = $12
   WHERE id IN (SELECT id FROM ipn_notifications
                 WHERE order_tracking_id = $2 AND received_at <= now()
                   AND COALESCE(gateway_account, $13) = $1
                UNION ALL SELECT $11::uuid)
     AND status IN ${OPEN_NOTIFICATION_STATUSES_SQL}
  RETURNING (SELECT id FROM kept) AS kept_id`;

export const KEPT_NOTE = 'kept as a payment without an order (unmatched_payments)';

/**
 * The id the gateway holds the payment under, kept as the order's gateway_reference so that a
 * lookup by it finds the order: none when it is the order's own reference, or longer than a
 * reference of ours can be (the order is still found by the payment's tracking id).
 */
export function gatewayReferenceOf(
  payment: Pick<UnmatchedPaymentEntity, 'merchantReference'>,
  orderReference: string,
): string | null {
  const reference = payment.merchantReference;
  if (!reference || reference === orderReference) return null;
  return reference.length <= MERCHANT_REFERENCE_MAX_LENGTH ? reference : null;
}

/**
 * An order of ours other than `exceptId` whose reference or gateway reference (each unique) is
 * this one, or null.
 */
export function orderHoldingReference(
  manager: EntityManager,
  reference: string,
  exceptId: string | null,
): Promise<OrderEntity | null> {
  const other = exceptId === null ? {} : { id: Not(exceptId) };
  return manager.getRepository(OrderEntity).findOne({
    where: [
      { gatewayReference: reference, ...other },
      { merchantReference: reference, ...other },
    ],
  });
}

/** A reference of the adopted order's: ours, derived from the gateway's tracking id. */
export const ADOPTED_PREFIX = 'UNMATCHED-';

/**
 * Payments without an order: kept by the worker when a notification's lookup finds money no
 * order of ours carries, locked and settled by the admin's acts (a match, a refund).
 */
@Injectable()
export class UnmatchedPaymentLedger {
  constructor(
    private readonly dataSource: DataSource,
    private readonly journal: OrderJournal,
  ) {}

  /** Answers whether this call kept it (false: it was kept already). */
  async keep(
    notificationId: string,
    gatewayAccount: string,
    record: TransactionRecord,
  ): Promise<boolean> {
    const rows = (await this.dataSource.query(KEEP, [
      gatewayAccount,
      record.orderTrackingId,
      record.amount.toDecimalString(),
      record.currency.toUpperCase(),
      cutText(record.merchantReference, 100),
      cutText(record.paymentMethod, 64),
      cutText(record.paymentAccount, 64),
      cutText(record.confirmationCode, 100),
      record.createdAt ?? null,
      record.raw == null ? null : JSON.stringify(record.raw),
      notificationId,
      KEPT_NOTE,
      DEFAULT_ACCOUNT,
    ])) as [{ kept_id: string | null }[], number];
    // An UPDATE's answer through TypeORM: [rows, count]; none when every row was closed already.
    return rows[0].some((row) => row.kept_id !== null);
  }

  /**
   * The payment under its row lock, still open: an unknown id is a 404, a settled one a 409
   * naming how it was settled.
   */
  async lockOpen(manager: EntityManager, id: string): Promise<UnmatchedPaymentEntity> {
    const payment = await this.lock(manager, id);
    if (payment.status !== 'open') {
      throw new CheckoutError(
        'unmatched_payment_settled',
        `this payment without an order is already ${payment.status}`,
        { unmatched_payment: toUnmatchedPaymentView(payment) },
      );
    }
    return payment;
  }

  async lock(manager: EntityManager, id: string): Promise<UnmatchedPaymentEntity> {
    const payment = isUuid(id)
      ? await manager
          .getRepository(UnmatchedPaymentEntity)
          .createQueryBuilder('p')
          .setLock('pessimistic_write')
          .where('p.id = :id', { id })
          .getOne()
      : null;
    if (!payment) throw CheckoutError.notFound('unmatched_payment', id);
    return payment;
  }

  /** Stamps the settlement and writes the act to the audit trail, in the caller's transaction. */
  async settle(
    manager: EntityManager,
    payment: UnmatchedPaymentEntity,
    settlement: { status: 'matched' | 'refund_requested'; order: OrderEntity; reason?: string },
    operator: Operator,
  ): Promise<void> {
    payment.status = settlement.status;
    payment.orderId = settlement.order.id;
    payment.settledById = cutText(auditActorOf(operator).id, 200);
    payment.settledBy = cutText(operatorLabel(operator), 254);
    payment.settledAt = new Date();
    await manager.getRepository(UnmatchedPaymentEntity).save(payment);
    await recordCurrentAct(manager, {
      action:
        settlement.status === 'matched'
          ? 'unmatched_payment.matched'
          : 'unmatched_payment.refund_requested',
      target: `unmatched_payment:${payment.id}`,
      before: { status: 'open' },
      after: {
        status: payment.status,
        order: settlement.order.merchantReference,
        amount: payment.amount,
        currency: payment.currency,
        order_tracking_id: payment.orderTrackingId,
        ...(settlement.reason ? { reason: settlement.reason } : {}),
      },
    });
  }

  /**
   * The payment recorded as a completed order of ours, so that refunding it is an ordinary
   * refund of an order: one refund per payment, approvals above the threshold, the gateway call,
   * the follow-up until the reversal, the audit trail and the merchant events, all unchanged.
   * Its reference is derived from the gateway's tracking id; its timeline says it was adopted.
   * Idempotent: a payment already adopted answers its order (a refund request that failed after
   * the adoption is asked again).
   */
  async adopt(id: string, reason: string, operator: Operator): Promise<OrderEntity> {
    return this.dataSource.transaction(async (manager) => {
      const locked = await this.lock(manager, id);
      if (locked.status === 'refund_requested' && locked.orderId) {
        const adopted = await manager.getRepository(OrderEntity).findOneBy({ id: locked.orderId });
        if (adopted) return adopted;
      }
      const payment = await this.lockOpen(manager, id);
      const orders = manager.getRepository(OrderEntity);
      const reference = cutText(`${ADOPTED_PREFIX}${payment.orderTrackingId}`, 50);
      const heldUnder = gatewayReferenceOf(payment, reference);
      // One another order of ours holds (of another account) is left out: lookups by it would
      // find two orders. The adopted order is still found by the payment's tracking id.
      const gatewayReference =
        heldUnder !== null && !(await orderHoldingReference(manager, heldUnder, null))
          ? heldUnder
          : null;
      const order = await orders.save(
        orders.create({
          merchantReference: reference,
          orderTrackingId: payment.orderTrackingId.slice(0, 64),
          // The id the gateway holds it under, so that lookups of it match this order.
          gatewayReference,
          kind: 'hosted',
          status: 'completed',
          submissionStatus: 'submitted',
          amount: payment.amount,
          currency: payment.currency,
          gatewayAccount: payment.gatewayAccount,
          description: 'A payment without an order, adopted to be refunded',
          customer: {},
          confirmationCode: payment.confirmationCode,
          paymentMethod: payment.paymentMethod,
          paymentAccount: payment.paymentAccount,
          paidAmount: payment.amount,
          paidCurrency: payment.currency,
          paidAt: payment.paidAt ?? payment.createdAt,
          nextPollAt: null,
          lastCheckedAt: new Date(),
        }),
      );
      await this.journal.record(manager, order, {
        type: 'created',
        source: 'admin',
        actor: operatorLabel(operator),
        toStatus: 'completed',
        gatewayRecord: payment.gatewayRecord ?? null,
        details: {
          adopted_from_unmatched_payment: payment.id,
          order_tracking_id: payment.orderTrackingId,
          gateway_merchant_reference: payment.merchantReference,
          amount: payment.amount,
          currency: payment.currency,
          confirmation_code: payment.confirmationCode,
        },
      });
      await this.settle(manager, payment, { status: 'refund_requested', order, reason }, operator);
      return order;
    });
  }
}

/** The stored payment as the gateway's lookup answered it, for the order it completes. */
export function lookupOf(
  payment: UnmatchedPaymentEntity,
  order: Pick<OrderEntity, 'gatewayReference' | 'merchantReference'>,
): TransactionLookup {
  return { kind: 'found', record: recordOf(payment, order) };
}

function recordOf(
  payment: UnmatchedPaymentEntity,
  order: Pick<OrderEntity, 'gatewayReference' | 'merchantReference'>,
): TransactionRecord {
  return {
    orderTrackingId: payment.orderTrackingId as OrderTrackingId,
    merchantReference: (order.gatewayReference ??
      order.merchantReference) as TransactionRecord['merchantReference'],
    outcome: 'completed',
    statusCode: 1,
    statusDescription: 'Completed',
    confirmationCode: payment.confirmationCode as TransactionRecord['confirmationCode'],
    paymentMethod: payment.paymentMethod,
    paymentAccount: payment.paymentAccount,
    amount: Money.of(payment.amount, payment.currency),
    currency: payment.currency,
    createdAt: payment.paidAt ?? payment.createdAt,
    description: null,
    paymentStatusCode: null,
    callbackUrl: null,
    accountNumber: null,
    raw: { unmatched_payment_id: payment.id, gateway_record: payment.gatewayRecord ?? null },
  };
}
