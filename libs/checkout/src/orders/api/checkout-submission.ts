import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DEFAULT_ACCOUNT, SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { cutText, nextPollAt } from '@app/domain';
import { GatewayError, PushedOrder, SubmittedOrder } from '@app/gateway-client';
import {
  isUniqueViolation,
  OrderEntity,
  OrderRepository,
  PreparedStatement,
  runPrepared,
} from '@app/persistence';
import { journalledStatement, journalParams, OrderJournal } from '../order-journal';
import { FAILURE_REASON_MAX_LENGTH } from '../order-view';
import {
  CHECKOUT_ANSWER_COLUMNS,
  CheckoutAnswer,
  checkoutAnswerOf,
  CheckoutAnswerSource,
} from './checkout-answers';

export type NewOrder = Omit<
  Partial<OrderEntity>,
  'id' | 'status' | 'submissionStatus' | 'createdAt' | 'updatedAt' | 'version'
>;

/** What the checkout needs of the row it recorded, until the gateway answers. */
export type RecordedOrder = Pick<
  OrderEntity,
  'id' | 'gatewayAccount' | 'attemptStartedAt' | 'createdAt'
>;

/**
 * Each statement returns only what its caller uses (the recorded row's id and times; the id the
 * journal needs and the answer's columns), listed, not `*`: a prepared statement whose result changes shape (a
 * migration adding a column while this process runs) would fail on every connection holding it.
 * A first attempt is sent under the reference (gateway_reference stays null). Neither announces
 * a merchant event nor changes the order's status, so neither touches a payment link's tally.
 */
function checkoutStatements(): {
  record: PreparedStatement;
  complete: PreparedStatement;
} {
  return {
    record: {
      name: 'checkout-record',
      text: journalledStatement(
        `INSERT INTO orders
           (merchant_reference, kind, amount, currency, description, customer, customer_email,
            customer_phone, return_url, cancel_url, branch, redirect_mode, subscription,
            account_number, msisdn, network, next_poll_at, gateway_account, payment_link_id,
            status, submission_status, version)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11, $12, $13::jsonb, $14, $15,
                 $16, $17, $18, $19, 'pending', 'submitting', 1)
         RETURNING id, gateway_account AS "gatewayAccount",
                   attempt_started_at AS "attemptStartedAt", created_at AS "createdAt"`,
        19,
        { timelineOnly: true },
      ),
    },
    // A row no longer 'submitting' was completed or repaired already (a twin, or the worker).
    complete: {
      name: 'checkout-complete',
      text: journalledStatement(
        `UPDATE orders
            SET order_tracking_id = $2,
                redirect_url = COALESCE($3, redirect_url),
                push_merchant_reference = COALESCE($4, push_merchant_reference),
                business_number = COALESCE($5, business_number),
                push_account_number = COALESCE($6, push_account_number),
                submission_status = 'submitted', gateway_error = NULL,
                next_poll_at = CASE WHEN status = 'pending' THEN $7::timestamptz
                                    ELSE next_poll_at END,
                updated_at = CURRENT_TIMESTAMP, version = version + 1
          WHERE id = $1 AND submission_status <> 'submitted'
          RETURNING id, ${CHECKOUT_ANSWER_COLUMNS}`,
        7,
        { timelineOnly: true },
      ),
    },
  };
}

/** The unique index on merchant_reference refused the row: the reference is already in use. */
export class ReferenceTakenError extends Error {
  constructor(readonly reference: string) {
    super(`reference ${reference} is already in use`);
  }
}

/**
 * The order row's life around the gateway's creation call: recorded before it ('submitting'),
 * completed after it ('submitted'), or marked 'rejected' (no gateway order exists) or 'unknown'
 * (the call may have landed: the workers find the order by its reference and repair the row).
 */
@Injectable()
export class CheckoutSubmission {
  /** The checkout's two statements, prepared: every checkout runs both. */
  private readonly statements: { record: PreparedStatement; complete: PreparedStatement };

  constructor(
    private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
    private readonly journal: OrderJournal,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {
    this.statements = checkoutStatements();
  }

  /** Writes the row and its 'created' event; a crash after this leaves a row the poller repairs. */
  async record(fields: NewOrder, actor: string): Promise<RecordedOrder> {
    const now = new Date();
    try {
      const [row] = await runPrepared<RecordedOrder>(this.dataSource, this.statements.record, [
        fields.merchantReference,
        fields.kind,
        fields.amount,
        fields.currency,
        fields.description,
        JSON.stringify(fields.customer ?? {}),
        fields.customerEmail ?? null,
        fields.customerPhone ?? null,
        fields.returnUrl ?? null,
        fields.cancelUrl ?? null,
        fields.branch ?? null,
        fields.redirectMode ?? null,
        fields.subscription ? JSON.stringify(fields.subscription) : null,
        fields.accountNumber ?? null,
        fields.msisdn ?? null,
        fields.network ?? null,
        this.firstPoll(now, now),
        fields.gatewayAccount ?? DEFAULT_ACCOUNT,
        fields.paymentLinkId ?? null,
        ...journalParams(
          {
            type: 'created',
            source: 'api',
            actor,
            toStatus: 'pending',
            details: { kind: fields.kind, amount: fields.amount, currency: fields.currency },
          },
          null,
        ),
      ]);
      if (!row) throw new Error('order insert returned no row');
      return row;
    } catch (error) {
      if (isUniqueViolation(error, 'uq_orders_merchant_reference')) {
        throw new ReferenceTakenError(fields.merchantReference ?? '');
      }
      throw error;
    }
  }

  completeHosted(order: RecordedOrder, submitted: SubmittedOrder): Promise<CheckoutAnswer> {
    return this.complete(order, { redirectUrl: submitted.redirectUrl }, submitted.orderTrackingId, {
      order_tracking_id: submitted.orderTrackingId,
      redirect_url: submitted.redirectUrl,
    });
  }

  completePush(order: RecordedOrder, pushed: PushedOrder): Promise<CheckoutAnswer> {
    return this.complete(
      order,
      {
        pushMerchantReference: pushed.pushMerchantReference,
        businessNumber: pushed.businessNumber,
        pushAccountNumber: pushed.accountNumber,
      },
      pushed.orderTrackingId,
      {
        order_tracking_id: pushed.orderTrackingId,
        push_merchant_reference: pushed.pushMerchantReference,
        business_number: pushed.businessNumber,
      },
    );
  }

  /**
   * A business rejection means no gateway order exists: the row stays as a failed record of the
   * attempt. Anything else (timeout, unreachable, unreadable answer) leaves the outcome unknown.
   */
  markFailed(order: Pick<OrderEntity, 'id'>, error: unknown): Promise<OrderEntity | null> {
    const rejected =
      error instanceof GatewayError && (error.kind === 'rejected' || error.kind === 'auth');
    const gatewayError =
      error instanceof GatewayError ? { code: error.code, messages: error.messages } : null;
    return this.dataSource.transaction(async (manager) => {
      const row = await this.orders.lockById(order.id, manager);
      // No row to mark (never expected): the caller rethrows the gateway's error, not another.
      if (!row) return null;
      // The worker may have repaired the row meanwhile; never undo that.
      if (row.submissionStatus !== 'submitting') return row;
      row.gatewayError = gatewayError;
      if (rejected) {
        row.submissionStatus = 'rejected';
        row.status = 'failed';
        row.failedAt = new Date();
        row.failureReason = cutText(error.code ?? 'gateway_rejected', FAILURE_REASON_MAX_LENGTH);
        row.nextPollAt = null;
      } else {
        row.submissionStatus = 'unknown';
        // Due at once: the poller looks the order up by its reference and repairs the row.
        row.nextPollAt = new Date();
      }
      await manager.getRepository(OrderEntity).save(row);
      await this.journal.record(manager, row, {
        type: rejected ? 'submission_rejected' : 'submission_unknown',
        source: 'api',
        ...(rejected ? { fromStatus: 'pending', toStatus: 'failed' } : {}),
        details: {
          error: error instanceof Error ? error.name : 'unknown',
          ...(gatewayError ?? {}),
        },
      });
      return row;
    });
  }

  /**
   * The first answer completes the row and records 'submitted' in one statement. A row that is
   * no longer 'submitting' was completed or repaired already (a twin, or the worker): left as is.
   */
  private async complete(
    order: RecordedOrder,
    fields: Pick<
      Partial<OrderEntity>,
      'redirectUrl' | 'pushMerchantReference' | 'businessNumber' | 'pushAccountNumber'
    >,
    orderTrackingId: string,
    details: Record<string, unknown>,
  ): Promise<CheckoutAnswer> {
    const [row] = await runPrepared<CheckoutAnswerSource>(
      this.dataSource,
      this.statements.complete,
      [
        order.id,
        orderTrackingId,
        fields.redirectUrl ?? null,
        fields.pushMerchantReference ?? null,
        fields.businessNumber ?? null,
        fields.pushAccountNumber ?? null,
        this.firstPoll(order.attemptStartedAt ?? order.createdAt, new Date()),
        ...journalParams({ type: 'submitted', source: 'api', details }, null),
      ],
    );
    if (row) return checkoutAnswerOf(row);
    const current = await this.orders.findById(order.id);
    if (!current) throw new Error(`order ${order.id} is gone`);
    return checkoutAnswerOf(current);
  }

  firstPoll(createdAt: Date, now: Date): Date | null {
    const at = nextPollAt(
      0,
      createdAt,
      now,
      this.config.pollHorizonHours,
      this.config.pollScheduleSeconds,
    );
    return at === 'horizon_reached' ? null : at;
  }
}
