import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ConfirmationCode, cutText, Money } from '@app/domain';
import { GatewayAccounts } from '@app/gateway-client';
import { EventSource, OrderEntity, OrderRepository, PaymentAttemptEntity } from '@app/persistence';
import { CheckoutError } from '../errors/checkout-error';
import { announcement, OrderJournal } from '../orders/order-journal';
import { REFUND_MESSAGE_MAX_LENGTH } from '../orders/order-view';
import { askForRefund } from './refund-verdict';

export interface DoublePaymentRefundInput {
  reason: string;
  requestedBy: string;
}

/** The attempt's refund as an admin or the shop sees it. */
export interface DoublePaymentRefundView {
  attempt: number;
  confirmation_code: string | null;
  amount: string | null;
  currency: string;
  status: string | null;
  message: string | null;
  requested_by: string | null;
  requested_at: string | null;
}

/**
 * Refunds the second payment of an order two attempts paid: in one action, by an admin or by the
 * worker when AUTO_REFUND_DOUBLE_PAYMENTS is on. The payment is the earlier attempt's (the order
 * keeps the one it completed with); it is refunded in full and once: the request is recorded
 * under the order's row lock before the gateway is called, a second one is a 409, and a rejection
 * allows another try. An accepted refund clears the double payment's review flag.
 */
@Injectable()
export class DoublePaymentRefunds {
  private readonly logger = new Logger(DoublePaymentRefunds.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
    private readonly journal: OrderJournal,
    private readonly accounts: GatewayAccounts,
  ) {}

  async refund(
    reference: string,
    attemptNumber: number,
    input: DoublePaymentRefundInput,
    actor: string,
    source: EventSource = 'admin',
  ): Promise<DoublePaymentRefundView> {
    const found = await this.orders.findByAnyReference(reference);
    if (!found) throw CheckoutError.notFound('order', reference);
    const { order, attempt } = await this.dataSource.transaction(async (manager) => {
      const locked = await this.orders.lockById(found.id, manager);
      if (!locked) throw CheckoutError.notFound('order', reference);
      return {
        order: locked,
        attempt: await this.record(manager, locked, attemptNumber, input, actor, source),
      };
    });
    return this.send(order, attempt, input, actor, source);
  }

  /**
   * The attempt that paid second, refundable (completed, another payment than the order's, no
   * refund but a rejected one); throws the refusal otherwise. Under the order's lock.
   */
  async refundable(
    manager: EntityManager,
    locked: OrderEntity,
    attemptNumber: number,
  ): Promise<PaymentAttemptEntity> {
    const attempts = manager.getRepository(PaymentAttemptEntity);
    const paid = await attempts.findOneBy({ orderId: locked.id, number: attemptNumber });
    if (
      !paid ||
      paid.status !== 'completed' ||
      locked.status !== 'completed' ||
      !paid.confirmationCode ||
      paid.confirmationCode === locked.confirmationCode
    ) {
      throw new CheckoutError(
        'order_not_refundable',
        `attempt ${attemptNumber} of order ${locked.merchantReference} is not a second payment of the paid order`,
      );
    }
    if (paid.refundStatus && paid.refundStatus !== 'rejected') {
      throw new CheckoutError(
        'refund_already_requested',
        `attempt ${attemptNumber}'s payment already has a refund (${paid.refundStatus}); the gateway accepts only one per payment`,
        { refund: viewOf(paid, locked) },
      );
    }
    return paid;
  }

  /**
   * Records the request (the attempt's refund `requested` and its timeline event) in the
   * caller's transaction, under the order's lock, before anything is sent.
   */
  async record(
    manager: EntityManager,
    locked: OrderEntity,
    attemptNumber: number,
    input: DoublePaymentRefundInput,
    actor: string,
    source: EventSource = 'admin',
  ): Promise<PaymentAttemptEntity> {
    const paid = await this.refundable(manager, locked, attemptNumber);
    paid.refundStatus = 'requested';
    paid.refundRequestedBy = input.requestedBy.slice(0, 100);
    paid.refundRequestedAt = new Date();
    paid.refundMessage = null;
    await manager.getRepository(PaymentAttemptEntity).save(paid);
    await this.journal.record(manager, locked, {
      type: 'double_payment_refund_requested',
      source,
      actor,
      details: {
        attempt: attemptNumber,
        confirmation_code: paid.confirmationCode,
        amount: paid.paidAmount,
        reason: input.reason,
        requested_by: input.requestedBy,
      },
    });
    return paid;
  }

  /** The one gateway call for a recorded request, and its verdict written. */
  async send(
    order: OrderEntity,
    attempt: PaymentAttemptEntity,
    input: DoublePaymentRefundInput,
    actor: string,
    source: EventSource = 'admin',
  ): Promise<DoublePaymentRefundView> {
    const attemptNumber = attempt.number;
    const verdict = await askForRefund(this.accounts.forOrder(order), {
      confirmationCode: attempt.confirmationCode as ConfirmationCode,
      amount: Money.of(attempt.paidAmount ?? order.amount, order.currency),
      username: input.requestedBy,
      remarks: input.reason,
    });
    if (verdict.status === 'unknown') {
      this.logger.warn({ orderId: order.id, attempt: attemptNumber }, 'refund outcome unknown');
    }

    return this.dataSource.transaction(async (manager) => {
      const locked = (await this.orders.lockById(order.id, manager)) ?? order;
      const attempts = manager.getRepository(PaymentAttemptEntity);
      const paid = await attempts.findOneByOrFail({ id: attempt.id });
      paid.refundStatus = verdict.status;
      paid.refundMessage = verdict.message;
      await attempts.save(paid);
      const settled = verdict.status === 'accepted';
      if (settled && locked.needsReview && isAboutAttempt(locked.reviewReason, attemptNumber)) {
        locked.needsReview = false;
        locked.reviewReason = null;
        await manager.getRepository(OrderEntity).save(locked);
      }
      await this.journal.record(
        manager,
        locked,
        {
          type:
            verdict.status === 'unknown'
              ? 'double_payment_refund_outcome_unknown'
              : `double_payment_refund_${verdict.status}`,
          source,
          actor,
          details: {
            attempt: attemptNumber,
            gateway_status: verdict.gatewayStatus,
            gateway_message: verdict.message,
          },
        },
        settled
          ? announcement('refund.accepted', locked, null, {
              double_payment: viewOf(paid, locked),
            })
          : null,
      );
      return viewOf(paid, locked);
    });
  }
}

/** The review flag a double payment of this attempt raised (OrderOutcomeService words it). */
function isAboutAttempt(reason: string | null, attemptNumber: number): boolean {
  return reason?.startsWith(`double payment: attempt ${attemptNumber} `) ?? false;
}

function viewOf(attempt: PaymentAttemptEntity, order: OrderEntity): DoublePaymentRefundView {
  return {
    attempt: attempt.number,
    confirmation_code: attempt.confirmationCode,
    amount: attempt.paidAmount,
    currency: order.currency,
    status: attempt.refundStatus,
    message: cutText(attempt.refundMessage, REFUND_MESSAGE_MAX_LENGTH),
    requested_by: attempt.refundRequestedBy,
    requested_at: attempt.refundRequestedAt?.toISOString() ?? null,
  };
}
