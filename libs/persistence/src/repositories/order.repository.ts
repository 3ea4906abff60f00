import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In } from 'typeorm';
import { isUuid } from '@app/domain';
import { OrderEntity } from '../entities/order.entity';
import { OrderEventEntity } from '../entities/order-event.entity';
import { EarlierAttemptStatus, PaymentAttemptEntity } from '../entities/payment-attempt.entity';
import { RefundEntity } from '../entities/refund.entity';

/**
 * The id of the order a name given as `parameter` (`$1`, `:reference`) names, in one statement:
 * the order whose current attempt has that name (the oldest, should one order's reference be
 * another's tracking id), else the order of the earlier attempt that had it. Each branch is an OR
 * of unique indexes. Every read of an order by any of its names looks it up through this.
 */
export function orderIdNamedBy(parameter: string): string {
  return `COALESCE(
    (SELECT id FROM orders
      WHERE merchant_reference = ${parameter} OR order_tracking_id = ${parameter}
         OR push_merchant_reference = ${parameter} OR gateway_reference = ${parameter}
      ORDER BY created_at LIMIT 1),
    (SELECT order_id FROM payment_attempts
      WHERE gateway_reference = ${parameter} OR order_tracking_id = ${parameter}
         OR push_merchant_reference = ${parameter}
      LIMIT 1))`;
}

/** Reads of orders by any of their names, and the row lock every state change takes. */
@Injectable()
export class OrderRepository {
  private names: [string, string][] | undefined;

  constructor(private readonly dataSource: DataSource) {}

  private orders(manager?: EntityManager) {
    return (manager ?? this.dataSource.manager).getRepository(OrderEntity);
  }

  /** The database clock: inbox rows are stamped by it, so coverage is decided on it too. */
  async databaseNow(): Promise<Date> {
    const rows = (await this.dataSource.query('SELECT now() AS now')) as { now: Date }[];
    return new Date(rows[0].now);
  }

  /** Turns a raw `RETURNING *` row of orders into the entity (pg has already parsed the types). */
  hydrate(raw: Record<string, unknown>): OrderEntity {
    const order = new OrderEntity() as unknown as Record<string, unknown>;
    for (const [databaseName, propertyName] of this.columnNames()) {
      if (databaseName in raw) order[propertyName] = raw[databaseName];
    }
    return order as unknown as OrderEntity;
  }

  /** Each column's name in the database and in the entity, read from the metadata once. */
  private columnNames(): [string, string][] {
    this.names ??= this.dataSource.getMetadata(OrderEntity).columns.map((column) => {
      // Every column of orders is a plain property: no embedded entity, no relation.
      if (column.embeddedMetadata || column.relationMetadata) {
        throw new Error(
          `orders.${column.databaseName} is not a plain column: hydrate cannot set it`,
        );
      }
      return [column.databaseName, column.propertyName];
    });
    return this.names;
  }

  findById(id: string, manager?: EntityManager): Promise<OrderEntity | null> {
    return isUuid(id) ? this.orders(manager).findOneBy({ id }) : Promise.resolve(null);
  }

  /**
   * The shop's reference, the gateway's order_tracking_id, push's generated reference and the id
   * an attempt was sent under all name the same order, for every attempt; any one finds it.
   */
  findByAnyReference(reference: string, manager?: EntityManager): Promise<OrderEntity | null> {
    return this.orders(manager)
      .createQueryBuilder('o')
      .where(`o.id = ${orderIdNamedBy(':reference')}`, { reference })
      .getOne();
  }

  /** An earlier attempt (not the order's current one) named by any of its ids. */
  findEarlierAttempt(
    reference: string,
    manager?: EntityManager,
  ): Promise<PaymentAttemptEntity | null> {
    return (manager ?? this.dataSource.manager)
      .getRepository(PaymentAttemptEntity)
      .createQueryBuilder('a')
      .where(
        'a.gateway_reference = :reference OR a.order_tracking_id = :reference OR a.push_merchant_reference = :reference',
        { reference },
      )
      .getOne();
  }

  /** The earlier attempt of this order a gateway record names (by tracking id or the id sent). */
  findEarlierAttemptOf(
    orderId: string,
    record: { orderTrackingId: string | null; merchantReference: string | null },
    manager?: EntityManager,
  ): Promise<PaymentAttemptEntity | null> {
    return (manager ?? this.dataSource.manager)
      .getRepository(PaymentAttemptEntity)
      .createQueryBuilder('a')
      .where('a.order_id = :orderId', { orderId })
      .andWhere('(a.order_tracking_id = :trackingId OR a.gateway_reference = :reference)', {
        trackingId: record.orderTrackingId ?? '',
        reference: record.merchantReference ?? '',
      })
      .getOne();
  }

  /**
   * The order row's current attempt joins the earlier ones (another attempt takes the row):
   * its ids, as it ends, with `status`.
   */
  async setAsideCurrentAttempt(
    order: OrderEntity,
    status: EarlierAttemptStatus,
    manager: EntityManager,
  ): Promise<void> {
    await manager.getRepository(PaymentAttemptEntity).insert({
      orderId: order.id,
      number: order.attemptNumber,
      kind: order.kind,
      gatewayReference: order.gatewayReference ?? order.merchantReference,
      orderTrackingId: order.orderTrackingId,
      pushMerchantReference: order.pushMerchantReference,
      status,
      failureReason: order.failureReason,
      confirmationCode: null,
      paidAmount: null,
      paidAt: null,
      startedAt: order.attemptStartedAt ?? order.createdAt,
      replacedAt: new Date(),
    });
  }

  /** The order's earlier attempts, first first (the current one is the order row). */
  earlierAttempts(orderId: string, manager?: EntityManager): Promise<PaymentAttemptEntity[]> {
    return (manager ?? this.dataSource.manager)
      .getRepository(PaymentAttemptEntity)
      .find({ where: { orderId }, order: { number: 'ASC' } });
  }

  findByMerchantReference(reference: string, manager?: EntityManager) {
    return this.orders(manager).findOneBy({ merchantReference: reference });
  }

  findByTrackingId(orderTrackingId: string, manager?: EntityManager) {
    return this.orders(manager).findOneBy({ orderTrackingId });
  }

  /** The first order of a subscription, found by the account number recurring notifications name. */
  /** The subscription's first order, on the merchant account its charges come from. */
  findBySubscriptionAccount(
    accountNumber: string,
    gatewayAccount = 'default',
    manager?: EntityManager,
  ) {
    return this.orders(manager).findOne({
      where: { accountNumber, gatewayAccount },
      order: { createdAt: 'ASC' },
    });
  }

  /** Locks the order row for the rest of the transaction: state changes are serialised per order. */
  lockById(id: string, manager: EntityManager): Promise<OrderEntity | null> {
    return manager
      .getRepository(OrderEntity)
      .createQueryBuilder('o')
      .setLock('pessimistic_write')
      .where('o.id = :id', { id })
      .getOne();
  }

  /** Counts a poll and says when the next one is due (null: none, the sweep leaves it alone). */
  async schedulePoll(orderId: string, attempts: number, next: Date | null): Promise<void> {
    await this.orders().update({ id: orderId }, { pollAttempts: attempts, nextPollAt: next });
  }

  /** The order's latest `limit` timeline entries, oldest first (idx_order_events_order, read backwards). */
  async timeline(orderId: string, limit: number): Promise<OrderEventEntity[]> {
    const latest = await this.dataSource.manager
      .getRepository(OrderEventEntity)
      .find({ where: { orderId }, order: { createdAt: 'DESC', id: 'DESC' }, take: limit });
    return latest.reverse();
  }

  /**
   * The order's refund: the one that is not rejected (at most one, by the partial unique index),
   * else the latest rejected attempt. Since a new attempt needs every earlier one rejected, this
   * is also the latest.
   */
  async refundFor(orderId: string, manager?: EntityManager): Promise<RefundEntity | null> {
    return (await this.refundsFor([orderId], manager)).get(orderId) ?? null;
  }

  /** refundFor for many orders at once (list views), keyed by order id. */
  async refundsFor(
    orderIds: string[],
    manager?: EntityManager,
  ): Promise<Map<string, RefundEntity>> {
    if (orderIds.length === 0) return new Map();
    const refunds = await (manager ?? this.dataSource.manager)
      .getRepository(RefundEntity)
      .find({ where: { orderId: In(orderIds) }, order: { createdAt: 'DESC' } });
    const current = new Map<string, RefundEntity>();
    for (const refund of refunds) {
      const chosen = current.get(refund.orderId);
      if (!chosen || (chosen.status === 'rejected' && refund.status !== 'rejected')) {
        current.set(refund.orderId, refund);
      }
    }
    return current;
  }
}
