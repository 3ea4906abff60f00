import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import {
  attemptGatewayReference,
  AttemptRefusal,
  attemptRefusal,
  currentAttemptStatus,
  MerchantReference,
  OrderTrackingId,
} from '@app/domain';
import { GatewayAccounts } from '@app/gateway-client';
import { OrderEntity, OrderRepository } from '@app/persistence';
import { CheckoutError } from '../../errors/checkout-error';
import { announcement, OrderJournal } from '../order-journal';
import { ATTEMPTS_PER_ORDER_LIMIT } from '../order-view';
import { CheckoutSubmission } from './checkout-submission';
import { CheckoutResult, CheckoutService } from './checkout.service';
import { StartAttemptDto } from './dto/start-attempt.dto';
import { mobileMoneyCountry, readMobileNumber } from './dto/mobile-number';

/** Salts tried for a free gateway id before giving up (each lengthens its order-id part). */
const GATEWAY_REFERENCE_SALTS = 4;

/**
 * A customer trying again on the same order: a new payment attempt is a new gateway order under
 * its own id, started when the current attempt failed or is a pending prompt (cancelled at the
 * gateway first: "resend the prompt"). The attempt it replaces moves to payment_attempts, where
 * its ids still find the order and its late outcome still counts (OrderOutcomeService).
 */
@Injectable()
export class PaymentAttemptService {
  private readonly logger = new Logger(PaymentAttemptService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
    private readonly accounts: GatewayAccounts,
    private readonly checkouts: CheckoutService,
    private readonly submission: CheckoutSubmission,
    private readonly journal: OrderJournal,
  ) {}

  async start(reference: string, dto: StartAttemptDto, actor: string): Promise<CheckoutResult> {
    const order = await this.orders.findByAnyReference(reference);
    if (!order) throw CheckoutError.notFound('order', reference);
    refuse(order, attemptRefusal(order.status, order.kind, order.submissionStatus === 'submitted'));
    if (order.subscription) {
      throw new CheckoutError(
        'bad_request',
        `order ${order.merchantReference} starts a subscription; a new attempt would not carry it: start a new checkout`,
      );
    }
    const push =
      dto.method === 'mobile_money'
        ? {
            msisdn: phoneOf(dto, order.currency),
            network: this.checkouts.configuredNetwork(dto.network ?? ''),
          }
        : null;
    // Checked as the gateway would take it before anything changes.
    await this.checkouts.attemptRequest(
      order,
      attemptGatewayReference(order.merchantReference, order.attemptNumber + 1, order.id),
      push,
    );
    if (order.status === 'pending') await this.cancelPendingPrompt(order);

    const next = await this.dataSource.transaction((manager) =>
      this.replaceAttempt(manager, order, dto.method, push, actor),
    );
    const request = await this.checkouts.attemptRequest(
      next,
      next.gatewayReference as MerchantReference,
      push,
    );
    return { status: 201, body: await this.checkouts.submit(next, dto.method, request) };
  }

  /** The prompt still on the customer's phone is cancelled before another is sent. */
  private async cancelPendingPrompt(order: OrderEntity): Promise<void> {
    const ack = await this.accounts
      .forOrder(order)
      .cancelOrder(order.orderTrackingId as OrderTrackingId);
    if (!ack.accepted) {
      throw new CheckoutError(
        'attempt_still_payable',
        `the gateway did not cancel the pending prompt of order ${order.merchantReference} (${ack.message}): it may still be paid; look again shortly`,
      );
    }
  }

  /** Under the order's row lock: the current attempt moves to payment_attempts, a new one begins. */
  private async replaceAttempt(
    manager: EntityManager,
    seen: OrderEntity,
    method: StartAttemptDto['method'],
    push: { msisdn: string; network: string } | null,
    actor: string,
  ): Promise<OrderEntity> {
    const order = await this.orders.lockById(seen.id, manager);
    if (!order) throw CheckoutError.notFound('order', seen.merchantReference);
    if (order.attemptNumber !== seen.attemptNumber) {
      throw new CheckoutError(
        'attempt_still_payable',
        `another attempt of order ${order.merchantReference} started meanwhile`,
      );
    }
    // Paid or failed while the prompt was being cancelled: decide again.
    if (order.status !== seen.status) refuse(order, attemptRefusal(order.status, order.kind, true));
    const now = new Date();
    const [{ latest }] = (await manager.query(
      `SELECT COALESCE(MAX(number), 0)::int AS latest FROM payment_attempts WHERE order_id = $1`,
      [order.id],
    )) as { latest: number }[];
    const number = Math.max(order.attemptNumber, latest) + 1;
    // An order's answer lists every attempt: a bound keeps it (and a retry loop) finite.
    if (number > ATTEMPTS_PER_ORDER_LIMIT) {
      throw new CheckoutError(
        'attempts_exhausted',
        `order ${order.merchantReference} has had ${ATTEMPTS_PER_ORDER_LIMIT} attempts; start a new order`,
      );
    }
    const gatewayReference = await this.freeGatewayReference(manager, order, number);
    const previous = {
      attempt: order.attemptNumber,
      // A declined attempt stays failed; one the customer cancelled, or a prompt cancelled to
      // send another, is cancelled.
      status:
        currentAttemptStatus(order.status, order.failureReason) === 'failed'
          ? 'failed'
          : 'cancelled',
      order_tracking_id: order.orderTrackingId,
    } as const;
    await this.orders.setAsideCurrentAttempt(order, previous.status, manager);
    const from = order.status;
    Object.assign(order, {
      attemptNumber: number,
      gatewayReference,
      attemptStartedAt: now,
      kind: method,
      status: 'pending',
      submissionStatus: 'submitting',
      orderTrackingId: null,
      pushMerchantReference: null,
      redirectUrl: null,
      businessNumber: null,
      pushAccountNumber: null,
      msisdn: push?.msisdn ?? null,
      network: push?.network ?? null,
      failureReason: null,
      failedAt: null,
      gatewayError: null,
      paymentMethod: null,
      paymentAccount: null,
      pollAttempts: 0,
      lastCheckedAt: null,
      nextPollAt: this.submission.firstPoll(now, now),
    } satisfies Partial<OrderEntity>);
    await manager.getRepository(OrderEntity).save(order);
    await this.journal.record(
      manager,
      order,
      {
        type: 'attempt_started',
        source: 'api',
        actor,
        fromStatus: from,
        toStatus: 'pending',
        details: { attempt: number, method, gateway_reference: gatewayReference, previous },
      },
      announcement('order.attempt_started', order, null, { previous }),
    );
    this.logger.log({ orderId: order.id, attempt: number, method }, 'payment attempt started');
    return order;
  }

  /**
   * The attempt's id at the gateway must be new there: no order's reference and no attempt's id
   * (the gateway would answer a known one with that earlier order).
   */
  private async freeGatewayReference(
    manager: EntityManager,
    order: OrderEntity,
    number: number,
  ): Promise<string> {
    for (let salt = 0; salt < GATEWAY_REFERENCE_SALTS; salt += 1) {
      const candidate = attemptGatewayReference(order.merchantReference, number, order.id, salt);
      const taken = (await manager.query(
        `SELECT 1 FROM orders WHERE merchant_reference = $1 OR gateway_reference = $1
         UNION ALL SELECT 1 FROM payment_attempts WHERE gateway_reference = $1 LIMIT 1`,
        [candidate],
      )) as unknown[];
      if (taken.length === 0) return candidate;
    }
    throw new Error(`no free gateway id for attempt ${number} of order ${order.id}`);
  }
}

const REFUSALS: Record<Exclude<AttemptRefusal, null>, (order: OrderEntity) => string> = {
  order_paid: (order) =>
    `order ${order.merchantReference} is paid; nothing is left to try (refund it instead)`,
  order_closed: (order) =>
    `order ${order.merchantReference} is ${order.status}; start a new checkout to take a payment`,
  attempt_still_payable: (order) =>
    `order ${order.merchantReference}'s payment page is still open to the customer; they can pay there (or the shop cancels the order)`,
  order_not_submitted: (order) =>
    `order ${order.merchantReference} has no gateway order yet (submission ${order.submissionStatus}); look again shortly`,
};

function refuse(order: OrderEntity, refusal: AttemptRefusal): void {
  if (refusal) throw new CheckoutError(refusal, REFUSALS[refusal](order));
}

/** The phone as push takes it, read for the order's country (or the one given). */
function phoneOf(dto: StartAttemptDto, currency: string): string {
  const reading = readMobileNumber(dto.phone, mobileMoneyCountry(dto.country, currency));
  if (!reading.ok) throw CheckoutError.invalid([{ field: reading.field, reason: reading.reason }]);
  return reading.msisdn;
}
