import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditEventEntity } from '@app/persistence';
import { newestFirstList } from '../../http/page-cursor';
import { AuditQuery } from './audit.dto';

export interface AuditEventView {
  id: string;
  seq: number;
  at: string;
  actor_kind: string;
  actor_id: string | null;
  actor_email: string | null;
  roles: string[];
  action: string;
  target: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  reason: string | null;
  outcome: string;
  status: number | null;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
  trace_id: string | null;
  hash: string;
}

const LIST = 'admin-audit';

/** The audit trail, newest first, filtered by actor, action, target and time, a page at a time. */
@Injectable()
export class AuditListService {
  constructor(private readonly dataSource: DataSource) {}

  async list(query: AuditQuery) {
    const limit = query.limit ?? 50;
    const { cursor, limit: _limit, ...filters } = query;
    const pages = newestFirstList(LIST, filters, cursor);
    const rows = this.dataSource.getRepository(AuditEventEntity).createQueryBuilder('e');
    if (query.actor) rows.andWhere('e.actor_id = :actor', { actor: query.actor });
    if (query.action) rows.andWhere('e.action = :action', { action: query.action });
    if (query.target) rows.andWhere('e.target = :target', { target: query.target });
    if (query.request_id)
      rows.andWhere('e.request_id = :requestId', { requestId: query.request_id });
    if (query.from) rows.andWhere('e.at >= :from', { from: new Date(query.from) });
    if (query.to) rows.andWhere('e.at < :to', { to: new Date(query.to) });
    const page = await pages.page(
      rows,
      { alias: 'e', table: 'audit_events', column: 'at', at: (e) => e.at },
      limit,
    );
    return { items: page.rows.map(viewOf), limit, next_cursor: page.next_cursor };
  }
}

function viewOf(e: AuditEventEntity): AuditEventView {
  return {
    id: e.id,
    seq: Number(e.seq),
    at: e.at.toISOString(),
    actor_kind: e.actorKind,
    actor_id: e.actorId,
    actor_email: e.actorEmail,
    roles: e.roles,
    action: e.action,
    target: e.target,
    before: e.before,
    after: e.after,
    reason: e.reason,
    outcome: e.outcome,
    status: e.status,
    ip: e.ip,
    user_agent: e.userAgent,
    request_id: e.requestId,
    trace_id: e.traceId,
    hash: e.hash,
  };
}
