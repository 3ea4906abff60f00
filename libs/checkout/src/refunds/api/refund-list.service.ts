import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RefundStatus } from '@app/domain';
import { RefundEntity } from '@app/persistence';
import { newestFirstList } from '../../http/page-cursor';
import { AdminRefundView, toAdminRefundView } from '../refund-admin-view';

export interface RefundFilters {
  status?: RefundStatus;
  from?: string;
  to?: string;
  currency?: string;
  limit?: number;
  cursor?: string;
}

export interface RefundPage {
  items: AdminRefundView[];
  limit: number;
  /** Give it as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
}

const LIST = 'admin-refunds';

/** Refunds for the admin, newest first, each with its order's reference, a cursor page at a time. */
@Injectable()
export class RefundListService {
  constructor(private readonly dataSource: DataSource) {}

  async list(filters: RefundFilters): Promise<RefundPage> {
    const limit = filters.limit ?? 50;
    const fingerprint = { ...filters, limit: undefined, cursor: undefined };
    const pages = newestFirstList(LIST, fingerprint, filters.cursor);
    const query = this.dataSource
      .getRepository(RefundEntity)
      .createQueryBuilder('r')
      .leftJoinAndSelect('r.order', 'o');
    if (filters.status) query.andWhere('r.status = :status', { status: filters.status });
    if (filters.currency)
      query.andWhere('r.currency = :currency', { currency: filters.currency.toUpperCase() });
    if (filters.from) query.andWhere('r.created_at >= :from', { from: new Date(filters.from) });
    if (filters.to) query.andWhere('r.created_at < :to', { to: new Date(filters.to) });
    const page = await pages.page(
      query,
      { alias: 'r', table: 'refunds', column: 'created_at', at: (r) => r.createdAt },
      limit,
    );
    return {
      items: page.rows.map((refund) => toAdminRefundView(refund)),
      limit,
      next_cursor: page.next_cursor,
    };
  }
}
