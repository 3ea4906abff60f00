import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { OrderTrackingId } from '@app/domain';
import { GatewayAccounts, TransactionRecord } from '@app/gateway-client';
import { OrderEntity, OrderRepository } from '@app/persistence';
import { announcement, OrderJournal } from '../../orders/order-journal';

/** A charge the gateway has not settled yet; the job retries with backoff. */
export class ChargeNotSettledError extends Error {}

/**
 * A RECURRING notification names the subscription's account number and a new tracking id. The
 * charge is looked up and recorded against the subscription's first order (an event on its
 * timeline and a subscription.charged merchant event) without touching the first payment. The
 * confirmation code is unique, so a repeated notification records nothing twice.
 */
@Injectable()
export class RecurringChargeRecorder {
  private readonly logger = new Logger(RecurringChargeRecorder.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly accounts: GatewayAccounts,
    private readonly orders: OrderRepository,
    private readonly journal: OrderJournal,
  ) {}

  async record(first: OrderEntity, chargeTrackingId: OrderTrackingId): Promise<void> {
    // The subscription's first order names the account its charges are made on.
    const lookup = await this.accounts.forOrder(first).getTransactionStatus(chargeTrackingId);
    if (lookup.kind === 'not_found' || lookup.record.outcome === 'pending') {
      throw new ChargeNotSettledError(`charge ${chargeTrackingId} is not settled at the gateway`);
    }
    const record = lookup.record;
    if (record.outcome !== 'completed') {
      this.logger.warn(
        { orderId: first.id, chargeTrackingId, outcome: record.outcome },
        'recurring notification for a charge that did not complete',
      );
      return;
    }
    await this.dataSource.transaction(async (manager) => {
      const order = await this.orders.lockById(first.id, manager);
      if (!order) return;
      const row = this.chargeRow(order, record, chargeTrackingId);
      const inserted = (await manager.query(
        `INSERT INTO subscription_charges
           (order_id, account_number, order_tracking_id, confirmation_code, amount, currency,
            charged_at, subscription_info, gateway_record)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (confirmation_code) DO NOTHING
         RETURNING id`,
        [
          row.orderId,
          row.accountNumber,
          row.orderTrackingId,
          row.confirmationCode,
          row.amount,
          row.currency,
          row.chargedAt,
          row.subscriptionInfo === null ? null : JSON.stringify(row.subscriptionInfo),
          JSON.stringify(row.gatewayRecord ?? null),
        ],
      )) as { id: string }[];
      const chargeId = inserted[0]?.id;
      if (!chargeId) return;
      const charge = chargeView(chargeId, record, chargeTrackingId);
      await this.journal.record(
        manager,
        order,
        {
          type: 'subscription_charged',
          source: 'ipn',
          gatewayRecord: record.raw,
          details: charge,
        },
        announcement('subscription.charged', order, null, { charge }),
      );
    });
  }

  private chargeRow(order: OrderEntity, record: TransactionRecord, trackingId: string) {
    return {
      orderId: order.id,
      accountNumber: order.accountNumber ?? record.merchantReference,
      orderTrackingId: trackingId,
      confirmationCode: record.confirmationCode ?? `tracking-${trackingId}`,
      amount: record.amount.toDecimalString(),
      currency: record.currency,
      chargedAt: record.createdAt,
      subscriptionInfo: record.subscription ? subscriptionInfoOf(record) : null,
      gatewayRecord: record.raw,
    };
  }
}

function subscriptionInfoOf(record: TransactionRecord): Record<string, unknown> {
  const info = record.subscription;
  if (!info) return {};
  return {
    account_reference: info.accountReference,
    amount: info.amount.toDecimalString(),
    first_name: info.firstName,
    last_name: info.lastName,
    correlation_id: info.correlationId,
  };
}

function chargeView(id: string, record: TransactionRecord, trackingId: string) {
  return {
    charge_id: id,
    order_tracking_id: trackingId,
    confirmation_code: record.confirmationCode,
    amount: record.amount.toDecimalString(),
    currency: record.currency,
    charged_at: record.createdAt.toISOString(),
    payment_method: record.paymentMethod,
    subscription_transaction_info: record.subscription ? subscriptionInfoOf(record) : null,
  };
}
