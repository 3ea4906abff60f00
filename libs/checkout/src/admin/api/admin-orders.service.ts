import { Injectable } from '@nestjs/common';
import { Brackets, DataSource, SelectQueryBuilder } from 'typeorm';
import { ORDER_STATUSES, OrderStatus } from '@app/domain';
import { OrderEntity, OrderRepository } from '@app/persistence';
import { CheckoutError } from '../../errors/checkout-error';
import {
  AdminOrderDetail,
  AdminOrderView,
  toAdminOrderDetail,
  toAdminOrderView,
} from './admin-order-view';

export interface OrderFilters {
  status?: OrderStatus;
  from?: string;
  to?: string;
  currency?: string;
  q?: string;
  limit?: number;
  offset?: number;
}

export interface OrderPage {
  items: AdminOrderView[];
  total: number;
  limit: number;
  offset: number;
  /** Per status, for the same filters without the status one (the page's tabs). */
  counts: Record<OrderStatus, number>;
}

/** Phone numbers are stored as typed; compare their digits, with or without a country prefix. */
function phoneDigits(q: string): string | null {
  const digits = q.replace(/\D/g, '');
  return digits.length >= 6 && /^[+\d\s()-]+$/.test(q) ? digits : null;
}

/** The operator's view of orders: search by any identifier, filter, count and read one in full. */
@Injectable()
export class AdminOrdersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
  ) {}

  async list(filters: OrderFilters): Promise<OrderPage> {
    const limit = filters.limit ?? 50;
    const offset = filters.offset ?? 0;
    const query = this.filtered(filters);
    if (filters.status) query.andWhere('o.status = :status', { status: filters.status });
    const [rows, total] = await query
      .orderBy('o.created_at', 'DESC')
      .addOrderBy('o.id', 'ASC')
      .take(limit)
      .skip(offset)
      .getManyAndCount();
    const refunds = await this.orders.refundsFor(rows.map((o) => o.id));
    return {
      items: rows.map((order) => toAdminOrderView(order, refunds.get(order.id) ?? null)),
      total,
      limit,
      offset,
      counts: await this.counts(filters),
    };
  }

  async detail(reference: string): Promise<AdminOrderDetail> {
    const order = await this.find(reference);
    const [refund, events, attempts] = await Promise.all([
      this.orders.refundFor(order.id),
      this.orders.timeline(order.id),
      this.orders.earlierAttempts(order.id),
    ]);
    return toAdminOrderDetail(order, refund, events, attempts);
  }

  async find(reference: string): Promise<OrderEntity> {
    const order =
      (await this.orders.findByAnyReference(reference)) ?? (await this.orders.findById(reference));
    if (!order) throw CheckoutError.notFound('order', reference);
    return order;
  }

  private async counts(filters: OrderFilters): Promise<Record<OrderStatus, number>> {
    const rows = await this.filtered(filters)
      .select('o.status', 'status')
      .addSelect('COUNT(*)::int', 'count')
      .groupBy('o.status')
      .getRawMany<{ status: OrderStatus; count: number }>();
    const counts = Object.fromEntries(ORDER_STATUSES.map((s) => [s, 0])) as Record<
      OrderStatus,
      number
    >;
    for (const row of rows) counts[row.status] = Number(row.count);
    return counts;
  }

  private filtered(filters: OrderFilters): SelectQueryBuilder<OrderEntity> {
    const query = this.dataSource.getRepository(OrderEntity).createQueryBuilder('o');
    if (filters.currency)
      query.andWhere('o.currency = :currency', { currency: filters.currency.toUpperCase() });
    if (filters.from) query.andWhere('o.created_at >= :from', { from: new Date(filters.from) });
    if (filters.to) query.andWhere('o.created_at < :to', { to: new Date(filters.to) });
    const q = filters.q?.trim();
    if (q) {
      const digits = phoneDigits(q);
      query.andWhere(
        new Brackets((any) => {
          any
            .where('o.merchant_reference = :q', { q })
            .orWhere('o.order_tracking_id = :q')
            .orWhere('o.push_merchant_reference = :q')
            .orWhere('o.confirmation_code = :q')
            .orWhere('lower(o.customer_email) = lower(:q)');
          if (digits) {
            // Suffix match on digits: "0712 345 678" finds "+254712345678" and the reverse.
            any
              .orWhere(
                "right(regexp_replace(o.customer_phone, '\\D', '', 'g'), 9) = right(:digits, 9)",
                {
                  digits,
                },
              )
              .orWhere("right(regexp_replace(o.msisdn, '\\D', '', 'g'), 9) = right(:digits, 9)");
          }
        }),
      );
    }
    return query;
  }
}
