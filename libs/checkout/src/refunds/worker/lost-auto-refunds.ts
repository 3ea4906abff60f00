import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import {
  JobProducer,
  LostJobs,
  QUEUES,
  RefundDoublePaymentData,
  RequeuesLostJobs,
} from '@app/queues';

/**
 * Second payments waiting for their automatic refund: on an order flagged for review (through
 * its partial index), a completed attempt that paid other money than the order's and whose
 * refund was never asked for. Each is one refund job's data (orderId, attempt).
 */
const AWAITING_AUTO_REFUND = `SELECT a.order_id AS "orderId", a.number AS attempt
   FROM orders o JOIN payment_attempts a ON a.order_id = o.id
  WHERE o.needs_review AND o.status = 'completed'
    AND a.status = 'completed' AND a.refund_status IS NULL
    AND a.confirmation_code IS NOT NULL
    AND a.confirmation_code IS DISTINCT FROM o.confirmation_code`;

/**
 * AUTO_REFUND_DOUBLE_PAYMENTS: the verifier queues a double payment's refund once, when it flags
 * the order. When the queue's store comes back empty before that job ran, the order would stay
 * flagged with no refund: every second payment still waiting for one is queued again (its job id
 * names the order and attempt, so one the store still holds is not queued twice, and a refund
 * asked for meanwhile is refused by the job, not made twice).
 */
@Injectable()
@RequeuesLostJobs(QUEUES.orderSync, 'automatic refunds of double payments')
export class LostAutoRefunds implements LostJobs {
  constructor(
    private readonly dataSource: DataSource,
    private readonly jobs: JobProducer,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async requeueLost(): Promise<number> {
    if (!this.config.autoRefundDoublePayments) return 0;
    const waiting = (await this.dataSource.query(
      AWAITING_AUTO_REFUND,
    )) as RefundDoublePaymentData[];
    const lost = await this.jobs.notHeld('refund-double-payment', waiting);
    if (lost.length > 0) await this.jobs.addBulk('refund-double-payment', lost);
    return lost.length;
  }
}
