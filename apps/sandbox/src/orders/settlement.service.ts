import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { SANDBOX_CARD_ACCOUNT, SANDBOX_MOBILE_ACCOUNT } from '../gateway-choices';
import { gatewayNow } from '../gateway-time';
import { NotificationDispatcher } from '../notifications/notification-dispatcher.service';
import { OrderStore } from './order-store';
import { cardConfirmationCode, failedMobileCode, mobileReceiptCode } from './payment-codes';
import type { PaymentInstrument, SandboxOrder } from './sandbox-order';

export type Outcome = 'completed' | 'failed' | 'reversed';

export interface SettleRequest {
  outcome: Outcome;
  instrument: PaymentInstrument;
  account?: string;
  /** payment_status_code of a failure, e.g. request_terminated_by_user. */
  failureCode?: string;
  /** The payment's confirmation code, when not generated: the contract gives it no length. */
  confirmationCode?: string;
}

export class SettlementRefused extends Error {}

/**
 * The state changes of an order, as a customer, the push network or the merchant cause them;
 * each change notifies the order's IPN URL.
 */
@Injectable()
export class SettlementService {
  private nextCorrelationId = 1000;

  constructor(
    private readonly store: OrderStore,
    private readonly notifications: NotificationDispatcher,
  ) {}

  /** Pending or failed orders can be paid or fail (again); completed ones can be reversed. */
  settle(order: SandboxOrder, request: SettleRequest): void {
    if (request.outcome === 'reversed') {
      if (order.state !== 'completed') throw new SettlementRefused(`order is ${order.state}`);
      order.state = 'reversed';
      this.notifications.notify(order, order.channel === 'recurring' ? 'RECURRING' : 'IPNCHANGE');
      return;
    }
    if (order.state !== 'pending' && order.state !== 'failed') {
      throw new SettlementRefused(`order is ${order.state}`);
    }
    if (
      request.confirmationCode !== undefined &&
      this.store.confirmationCodeTaken(request.confirmationCode)
    ) {
      throw new SettlementRefused('confirmation code taken by another payment');
    }
    const previousCode = order.payment?.confirmationCode;
    order.payment = {
      instrument: request.instrument,
      account: request.account ?? this.defaultAccount(order, request.instrument),
      confirmationCode: request.confirmationCode ?? this.uniqueCode(request),
      statusCode: request.outcome === 'failed' ? (request.failureCode ?? '') : '',
      at: gatewayNow(),
    };
    order.state = request.outcome;
    this.store.recordPayment(order, previousCode);
    this.notifications.notify(order, 'IPNCHANGE');
  }

  /** Only pending or failed orders, and only once. */
  cancel(order: SandboxOrder): boolean {
    if (order.state !== 'pending' && order.state !== 'failed') return false;
    order.state = 'cancelled';
    this.notifications.notify(order, 'IPNCHANGE');
    return true;
  }

  /** A scheduled card charge of a subscription: a new completed transaction, RECURRING notice. */
  chargeSubscription(parent: SandboxOrder, amount?: string): SandboxOrder {
    if (parent.accountNumber === null) throw new SettlementRefused('order has no account_number');
    if (parent.payment?.instrument !== 'card' || parent.state !== 'completed') {
      throw new SettlementRefused('the first payment must be a completed card payment');
    }
    const billing = parent.billingAddress;
    const charge: SandboxOrder = {
      ...parent,
      orderTrackingId: randomUUID(),
      merchantReference: parent.accountNumber,
      generatedReference: null,
      channel: 'recurring',
      amount: amount ?? parent.amount,
      createdAt: gatewayNow(),
      state: 'completed',
      payment: {
        instrument: 'card',
        account: parent.payment.account,
        confirmationCode: this.uniqueCode({ outcome: 'completed', instrument: 'card' }),
        statusCode: '',
        at: gatewayNow(),
      },
      recurring: {
        parentTrackingId: parent.orderTrackingId,
        correlationId: (this.nextCorrelationId += 1),
        firstName: typeof billing.first_name === 'string' ? billing.first_name : '',
        lastName: typeof billing.last_name === 'string' ? billing.last_name : '',
      },
    };
    this.store.add(charge);
    this.notifications.notify(charge, 'RECURRING');
    return charge;
  }

  private defaultAccount(order: SandboxOrder, instrument: PaymentInstrument): string {
    if (instrument === 'card') return SANDBOX_CARD_ACCOUNT;
    if (order.msisdn) return order.msisdn;
    const phone = order.billingAddress.phone_number;
    return typeof phone === 'string' && phone !== '' ? phone : SANDBOX_MOBILE_ACCOUNT;
  }

  private uniqueCode(request: Pick<SettleRequest, 'outcome' | 'instrument'>): string {
    for (;;) {
      const code =
        request.instrument === 'card'
          ? cardConfirmationCode()
          : request.outcome === 'completed'
            ? mobileReceiptCode()
            : failedMobileCode();
      if (!this.store.confirmationCodeTaken(code)) return code;
    }
  }
}
