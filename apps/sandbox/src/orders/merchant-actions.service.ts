import { Injectable } from '@nestjs/common';
import { CANCEL_MESSAGES, REFUND_MESSAGES, TRANSPORT_MESSAGES } from '../gateway-choices';
import { compareDecimals, isPlainDecimal, isZeroDecimal } from '../http/exact-json';
import { decimalField, presentString } from '../http/fields';
import { GatewayReply, messageOnly, ok } from '../http/gateway-reply';
import { BoundBody, fieldsOf } from '../http/raw-body';
import { OrderStore } from './order-store';
import { SettlementService } from './settlement.service';
import { LookupEndpoint, notFoundRecord, statusRecord } from './status-record';
import type { SandboxOrder } from './sandbox-order';

const twoFields = (status: '200' | '500', message: string): GatewayReply => ok({ status, message });

/** Lookups, cancellation and refund: what a merchant does with an order after creating it. */
@Injectable()
export class MerchantActionsService {
  constructor(
    private readonly store: OrderStore,
    private readonly settlement: SettlementService,
  ) {}

  /** `value` undefined: the parameter was omitted, which the gateway answers in plain text. */
  lookup(
    merchantId: string,
    endpoint: LookupEndpoint,
    value: string | undefined,
    path: string,
  ): GatewayReply {
    if (value === undefined) return messageOnly(404, TRANSPORT_MESSAGES.notFound(path));
    let order: SandboxOrder | undefined;
    if (endpoint === 'byTrackingId') order = this.store.byTracking(value.trim());
    else if (endpoint === 'byMerchantReference') order = this.store.byReference(merchantId, value);
    else order = this.store.byConfirmation(value.trim());
    if (!order || order.merchantId !== merchantId) return ok(notFoundRecord());
    return ok(statusRecord(order, endpoint));
  }

  cancel(merchantId: string, body: BoundBody): GatewayReply {
    const trackingId = presentString(fieldsOf(body), 'order_tracking_id');
    if (trackingId === undefined) return twoFields('500', CANCEL_MESSAGES.missingId);
    const order = this.store.byTracking(trackingId.trim());
    if (!order || order.merchantId !== merchantId || order.channel === 'recurring') {
      return twoFields('500', CANCEL_MESSAGES.notFound);
    }
    return this.settlement.cancel(order)
      ? twoFields('200', CANCEL_MESSAGES.success)
      : twoFields('500', CANCEL_MESSAGES.notCancellable);
  }

  refund(merchantId: string, body: BoundBody): GatewayReply {
    const fields = fieldsOf(body);
    const code = presentString(fields, 'confirmation_code');
    const amount = decimalField(fields, 'amount');
    const username = presentString(fields, 'username');
    const remarks = presentString(fields, 'remarks');
    const missing = [
      ['confirmation_code', code],
      ['amount', amount],
      ['username', username],
      ['remarks', remarks],
    ].filter(([, value]) => value === undefined);
    if (missing.length > 0 || !code || !amount || !username || !remarks) {
      return twoFields(
        '500',
        missing.map(([name]) => REFUND_MESSAGES.fieldRequired(name as string)).join('|'),
      );
    }
    const order = this.store.byConfirmation(code.trim());
    if (!order || order.merchantId !== merchantId)
      return twoFields('500', REFUND_MESSAGES.notFound);
    this.store.countRefundRequest(code.trim());
    // One request per confirmation code, whatever its amount, checked before anything else.
    if (this.store.refundFor(order.payment?.confirmationCode ?? '')) {
      return twoFields('500', REFUND_MESSAGES.alreadyRequested);
    }
    if (order.state !== 'completed') return twoFields('500', REFUND_MESSAGES.notCompleted);
    if (!isPlainDecimal(amount) || isZeroDecimal(amount))
      return twoFields('500', REFUND_MESSAGES.invalidAmount);
    const comparison = compareDecimals(amount, order.amount);
    if (comparison > 0) return twoFields('500', REFUND_MESSAGES.tooLarge);
    if (comparison < 0 && order.payment?.instrument !== 'card') {
      return twoFields('500', REFUND_MESSAGES.mobileMoneyPartial);
    }
    this.store.addRefund({
      confirmationCode: code.trim(),
      amount,
      username,
      remarks,
      at: new Date(),
    });
    return twoFields('200', REFUND_MESSAGES.success);
  }
}
