import { Injectable } from '@nestjs/common';
import { Operator } from '../../operators/operator';
import { UnmatchedPaymentLedger } from '../../unmatched-payments/unmatched-payment-ledger';
import { RefundRequestResult, RefundService } from './refund.service';

/** The refund of a payment without an order: the order it was adopted as, and the refund's answer. */
export type UnmatchedPaymentRefundResult = { order: { reference: string } } & RefundRequestResult;

/**
 * Refunds a payment without an order in full. The payment is first adopted as a completed order
 * of ours (UnmatchedPaymentLedger.adopt), then refunded by the one refund path every order takes:
 * one refund per payment under the order's lock, the approval threshold and its second person,
 * the single gateway call, the follow-up until the reversal is seen, the audit trail and the
 * merchant events. A refund path of its own for these payments would repeat all of that, and
 * the refunds table stays a table of orders' refunds.
 */
@Injectable()
export class UnmatchedPaymentRefunds {
  constructor(
    private readonly ledger: UnmatchedPaymentLedger,
    private readonly refunds: RefundService,
  ) {}

  async refund(
    id: string,
    reason: string,
    operator: Operator,
  ): Promise<UnmatchedPaymentRefundResult> {
    // Idempotent: a payment adopted already (a refund that failed or was declined) answers its
    // order, and the refund rules decide whether another request may follow.
    const order = await this.ledger.adopt(id, reason, operator);
    const result = await this.refunds.request(
      order.merchantReference,
      { amount: order.paidAmount ?? order.amount, reason, confirmPartial: false },
      operator,
    );
    return { order: { reference: order.merchantReference }, ...result };
  }
}
