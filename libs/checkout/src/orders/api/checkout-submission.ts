import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { SERVICE_CONFIG, ServiceConfig } from '@app/config';
import { nextPollAt } from '@app/domain';
import { GatewayError, PushedOrder, SubmittedOrder } from '@app/gateway-client';
import { isUniqueViolation, OrderEntity, OrderRepository } from '@app/persistence';
import { OrderJournal } from '../order-journal';

export type NewOrder = Omit<
  Partial<OrderEntity>,
  'id' | 'status' | 'submissionStatus' | 'createdAt' | 'updatedAt' | 'version'
>;

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
  constructor(
    private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
    private readonly journal: OrderJournal,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  /** Writes the row and its 'created' event; a crash after this leaves a row the poller repairs. */
  async record(fields: NewOrder, actor: string): Promise<OrderEntity> {
    const now = new Date();
    const insert = this.dataSource
      .getRepository(OrderEntity)
      .createQueryBuilder()
      .insert()
      .into(OrderEntity)
      .values({
        ...fields,
        status: 'pending',
        submissionStatus: 'submitting',
        nextPollAt: this.firstPoll(now, now),
      } as QueryDeepPartialEntity<OrderEntity>)
      .returning('*');
    try {
      const row = await this.journal.change(
        this.dataSource.manager,
        insert.getQueryAndParameters(),
        {
          type: 'created',
          source: 'api',
          actor,
          toStatus: 'pending',
          details: { kind: fields.kind, amount: fields.amount, currency: fields.currency },
        },
      );
      if (!row) throw new Error('order insert returned no row');
      return this.orders.hydrate(row);
    } catch (error) {
      if (isUniqueViolation(error, 'uq_orders_merchant_reference')) {
        throw new ReferenceTakenError(fields.merchantReference ?? '');
      }
      throw error;
    }
  }

  completeHosted(order: OrderEntity, submitted: SubmittedOrder): Promise<OrderEntity> {
    return this.complete(order, { redirectUrl: submitted.redirectUrl }, submitted.orderTrackingId, {
      order_tracking_id: submitted.orderTrackingId,
      redirect_url: submitted.redirectUrl,
    });
  }

  completePush(order: OrderEntity, pushed: PushedOrder): Promise<OrderEntity> {
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
  markFailed(order: OrderEntity, error: unknown): Promise<OrderEntity> {
    const rejected =
      error instanceof GatewayError && (error.kind === 'rejected' || error.kind === 'auth');
    const gatewayError =
      error instanceof GatewayError ? { code: error.code, messages: error.messages } : null;
    return this.dataSource.transaction(async (manager) => {
      const row = (await this.orders.lockById(order.id, manager)) ?? order;
      // The worker may have repaired the row meanwhile; never undo that.
      if (row.submissionStatus !== 'submitting') return row;
      row.gatewayError = gatewayError;
      if (rejected) {
        row.submissionStatus = 'rejected';
        row.status = 'failed';
        row.failedAt = new Date();
        row.failureReason = (error.code ?? 'gateway_rejected').slice(0, 100);
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
    order: OrderEntity,
    fields: Partial<OrderEntity>,
    orderTrackingId: string,
    details: Record<string, unknown>,
  ): Promise<OrderEntity> {
    const update = this.dataSource
      .getRepository(OrderEntity)
      .createQueryBuilder()
      .update(OrderEntity)
      .set({
        ...fields,
        orderTrackingId,
        submissionStatus: 'submitted',
        gatewayError: null,
        nextPollAt: () =>
          `CASE WHEN "status" = 'pending' THEN CAST(:nextPollAt AS timestamptz) ELSE "next_poll_at" END`,
      } as QueryDeepPartialEntity<OrderEntity>)
      .where('"id" = :id AND "submission_status" <> :submitted', {
        id: order.id,
        submitted: 'submitted',
        nextPollAt: this.firstPoll(order.attemptStartedAt ?? order.createdAt, new Date()),
      })
      .returning('*');
    const row = await this.journal.change(this.dataSource.manager, update.getQueryAndParameters(), {
      type: 'submitted',
      source: 'api',
      details,
    });
    if (row) return this.orders.hydrate(row);
    return (await this.orders.findById(order.id)) ?? order;
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
