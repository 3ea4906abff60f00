import { Injectable } from '@nestjs/common';
import { DataSource, SelectQueryBuilder } from 'typeorm';
import { ORDER_STATUSES, OrderStatus } from '@app/domain';
import { OrderEntity, OrderRepository } from '@app/persistence';
import { CheckoutError } from '../../errors/checkout-error';
import { TIMELINE_LIMIT } from '../../orders/order-view';
import { newestFirstList, NewestFirst } from '../../http/page-cursor';
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
  account?: string;
  q?: string;
  limit?: number;
  cursor?: string;
}

export interface OrderPage {
  items: AdminOrderView[];
  limit: number;
  /** Give it as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
  /**
   * Per status, for the same filters without the status one (the page's tabs), each counted up
   * to COUNT_CAP: a count equal to `count_cap` means at least that many.
   */
  counts: Record<OrderStatus, number>;
  count_cap: number;
}

/** Counting stops here: a tab says "1,000+" rather than scanning a year of orders. */
export const COUNT_CAP = 1000;
/** A search matching more orders than this (one customer's whole history) shows the newest. */
const SEARCH_MATCHES = 1000;
const LIST = 'admin-orders';
const BY_CREATED: NewestFirst<OrderEntity> = {
  alias: 'o',
  table: 'orders',
  column: 'created_at',
  at: (order) => order.createdAt,
};

/** Phone numbers are stored as typed; compare their last nine digits, with or without a prefix. */
function phoneDigits(q: string): string | null {
  const digits = q.replace(/\D/g, '');
  return digits.length >= 6 && /^[+\d\s()-]+$/.test(q) ? digits : null;
}

/** The same expression as the phone indexes (migrations/1795700000000-BoundedReads.ts). */
const LAST_NINE = (column: string) => `right(regexp_replace(${column}, '\\D', '', 'g'), 9)`;

/**
 * The operator's view of orders: search by any identifier, filter, count and read one in full.
 * Every read goes through an index and is bounded by the page it answers (see page-cursor.ts).
 */
@Injectable()
export class AdminOrdersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly orders: OrderRepository,
  ) {}

  async list(filters: OrderFilters): Promise<OrderPage> {
    const limit = filters.limit ?? 50;
    const fingerprint = { ...filters, limit: undefined, cursor: undefined };
    const pages = newestFirstList(LIST, fingerprint, filters.cursor);
    const matches = filters.q?.trim() ? await this.idsMatching(filters.q.trim()) : null;
    const query = this.filtered(filters, matches);
    if (filters.status) query.andWhere('o.status = :status', { status: filters.status });
    const page = await pages.page(query, BY_CREATED, limit);
    const [refunds, counts] = await Promise.all([
      this.orders.refundsFor(page.rows.map((o) => o.id)),
      this.counts(filters, matches),
    ]);
    return {
      items: page.rows.map((order) => toAdminOrderView(order, refunds.get(order.id) ?? null)),
      limit,
      next_cursor: page.next_cursor,
      counts,
      count_cap: COUNT_CAP,
    };
  }

  async detail(reference: string): Promise<AdminOrderDetail> {
    const order = await this.find(reference);
    const [refund, events, attempts] = await Promise.all([
      this.orders.refundFor(order.id),
      this.orders.timeline(order.id, TIMELINE_LIMIT),
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

  /**
   * Each identifier is looked up through its own index (one OR across columns would read them
   * all): references, tracking ids, push references and confirmation codes of the order and of
   * every earlier attempt, the email case-insensitively, and phones by their last nine digits.
   */
  private async idsMatching(q: string): Promise<string[]> {
    const digits = phoneDigits(q);
    const lookups = [
      'SELECT id FROM orders WHERE merchant_reference = $1',
      'SELECT id FROM orders WHERE order_tracking_id = $1',
      'SELECT id FROM orders WHERE push_merchant_reference = $1',
      'SELECT id FROM orders WHERE gateway_reference = $1',
      'SELECT id FROM orders WHERE confirmation_code = $1',
      'SELECT id FROM orders WHERE lower(customer_email) = lower($1)',
      'SELECT order_id FROM payment_attempts WHERE gateway_reference = $1',
      'SELECT order_id FROM payment_attempts WHERE order_tracking_id = $1',
      'SELECT order_id FROM payment_attempts WHERE push_merchant_reference = $1',
      'SELECT order_id FROM payment_attempts WHERE confirmation_code = $1',
    ];
    if (digits) {
      // Suffix match on digits: "0712 345 678" finds "+254712345678" and the reverse.
      lookups.push(
        `SELECT id FROM orders WHERE ${LAST_NINE('customer_phone')} = right($2, 9)`,
        `SELECT id FROM orders WHERE ${LAST_NINE('msisdn')} = right($2, 9)`,
      );
    }
    const rows = (await this.dataSource.query(
      `SELECT o.id FROM orders o WHERE o.id IN (${lookups.join(' UNION ALL ')})
        ORDER BY o.created_at DESC LIMIT ${SEARCH_MATCHES}`,
      digits ? [q, digits] : [q],
    )) as { id: string }[];
    return rows.map((row) => row.id);
  }

  /**
   * Per status, up to COUNT_CAP each: one small index range per status (by currency and status
   * when a currency is asked), never a count over the whole table.
   */
  private async counts(
    filters: OrderFilters,
    matches: string[] | null,
  ): Promise<Record<OrderStatus, number>> {
    const counts = Object.fromEntries(ORDER_STATUSES.map((s) => [s, 0])) as Record<
      OrderStatus,
      number
    >;
    await Promise.all(
      ORDER_STATUSES.map(async (status) => {
        const query = this.filtered(filters, matches)
          .select('1')
          .andWhere('o.status = :status', { status })
          .limit(COUNT_CAP);
        const [sql, parameters] = query.getQueryAndParameters();
        const [row] = (await this.dataSource.query(
          `SELECT count(*)::int AS count FROM (${sql}) AS capped`,
          parameters,
        )) as { count: number }[];
        counts[status] = Number(row?.count ?? 0);
      }),
    );
    return counts;
  }

  private filtered(
    filters: OrderFilters,
    matches: string[] | null,
  ): SelectQueryBuilder<OrderEntity> {
    const query = this.dataSource.getRepository(OrderEntity).createQueryBuilder('o');
    if (matches) query.andWhere('o.id = ANY(:matches)', { matches });
    if (filters.currency)
      query.andWhere('o.currency = :currency', { currency: filters.currency.toUpperCase() });
    if (filters.account)
      query.andWhere('o.gateway_account = :account', { account: filters.account });
    if (filters.from) query.andWhere('o.created_at >= :from', { from: new Date(filters.from) });
    if (filters.to) query.andWhere('o.created_at < :to', { to: new Date(filters.to) });
    return query;
  }
}
