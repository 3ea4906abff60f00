import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RefundStatus } from '@app/domain';
import { RefundEntity } from '@app/persistence';
import { AdminRefundView, toAdminRefundView } from '../refund-admin-view';

export interface RefundFilters {
  status?: RefundStatus;
  from?: string;
  to?: string;
  currency?: string;
  limit?: number;
  offset?: number;
}

export interface RefundPage {
  items: AdminRefundView[];
  total: number;
  limit: number;
  offset: number;
}

/** Refunds for the admin, newest first, each with its order's reference. */
@Injectable()
export class RefundListService {
  constructor(private readonly dataSource: DataSource) {}

  async list(filters: RefundFilters): Promise<RefundPage> {
    const limit = filters.limit ?? 50;
    const offset = filters.offset ?? 0;
    const query = this.dataSource
      .getRepository(RefundEntity)
      .createQueryBuilder('r')
      .leftJoinAndSelect('r.order', 'o')
      .orderBy('r.created_at', 'DESC')
      .addOrderBy('r.id', 'ASC')
      .take(limit)
      .skip(offset);
    if (filters.status) query.andWhere('r.status = :status', { status: filters.status });
    if (filters.currency)
      query.andWhere('r.currency = :currency', { currency: filters.currency.toUpperCase() });
    if (filters.from) query.andWhere('r.created_at >= :from', { from: new Date(filters.from) });
    if (filters.to) query.andWhere('r.created_at < :to', { to: new Date(filters.to) });
    const [rows, total] = await query.getManyAndCount();
    return { items: rows.map((refund) => toAdminRefundView(refund)), total, limit, offset };
  }
}
