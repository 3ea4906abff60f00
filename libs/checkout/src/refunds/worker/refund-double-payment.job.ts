import { Injectable } from '@nestjs/common';
import { OrderRepository } from '@app/persistence';
import { QueueJob, QueueJobHandler, RefundDoublePaymentData } from '@app/queues';
import { CheckoutError } from '../../errors/checkout-error';
import { DoublePaymentRefunds } from '../double-payment-refunds';

/** The actor the timeline names for a refund the service made on its own. */
export const AUTO_REFUND_ACTOR = 'AUTO_REFUND_DOUBLE_PAYMENTS';

/** AUTO_REFUND_DOUBLE_PAYMENTS: the second payment of a double payment, refunded by the worker. */
@Injectable()
@QueueJob('refund-double-payment')
export class RefundDoublePaymentJob implements QueueJobHandler<'refund-double-payment'> {
  constructor(
    private readonly refunds: DoublePaymentRefunds,
    private readonly orders: OrderRepository,
  ) {}

  async run(data: RefundDoublePaymentData): Promise<void> {
    const order = await this.orders.findById(data.orderId);
    if (!order) return;
    try {
      await this.refunds.refund(
        order.merchantReference,
        data.attempt,
        {
          reason: `double payment: attempt ${data.attempt} paid an order already paid`,
          requestedBy: AUTO_REFUND_ACTOR,
        },
        AUTO_REFUND_ACTOR,
        'worker',
      );
    } catch (error) {
      // Refunded already (an admin was quicker, or this job ran before): nothing left to do.
      if (error instanceof CheckoutError && error.category === 'conflict') return;
      throw error;
    }
  }
}
