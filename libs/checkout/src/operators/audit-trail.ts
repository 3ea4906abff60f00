import { cutText } from '@app/domain';
import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { activeTraceId } from '@app/common';
import { AuditActorKind, AuditOutcome } from '@app/persistence';

/** Who acted, as the trail names them (never a secret: a key's name or id, a person's subject). */
export interface AuditActor {
  kind: AuditActorKind;
  id: string | null;
  email?: string | null;
  roles?: string[];
}

/** Where a request came from: what an HTTP request says of itself. */
export interface AuditOrigin {
  ip?: string | null;
  userAgent?: string | null;
  requestId?: string | null;
}

export interface AuditEntry {
  actor: AuditActor;
  /** e.g. refund.requested, audit.read, request.refused. */
  action: string;
  target?: string | null;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
  reason?: string | null;
  outcome: AuditOutcome;
  status?: number | null;
  origin?: AuditOrigin;
}

export interface AuditVerification {
  ok: boolean;
  checked: number;
  /** The first row whose hash, link or place in the chain is not what was written. */
  first_broken?: { seq: number; id: string | null; problem: string };
}

/** Rows read per statement while verifying the chain. */
const VERIFY_BATCH = 10_000;

/**
 * The one writer and verifier of the audit trail (audit_events). A change's row is written in the
 * change's own transaction (pass its manager), so a change is never without its row, nor a row
 * without its change; the database chains it (migrations/1796000000000-AuditTrail.ts).
 */
@Injectable()
export class AuditTrail {
  constructor(private readonly dataSource: DataSource) {}

  async record(entry: AuditEntry, manager?: EntityManager): Promise<void> {
    const runner = manager ?? this.dataSource.manager;
    const origin = entry.origin ?? {};
    await runner.query(
      `INSERT INTO audit_events (actor_kind, actor_id, actor_email, roles, action, target, before,
                                 after, reason, outcome, status, ip, user_agent, request_id,
                                 trace_id, seq, hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, 0, '')`,
      [
        entry.actor.kind,
        cutText(entry.actor.id, 200),
        cutText(entry.actor.email, 254),
        entry.actor.roles ?? [],
        entry.action,
        cutText(entry.target, 200),
        entry.before ?? null,
        entry.after ?? null,
        cutText(entry.reason, 1000),
        entry.outcome,
        entry.status ?? null,
        cutText(origin.ip, 64),
        cutText(origin.userAgent, 300),
        cutText(origin.requestId, 100),
        activeTraceId() ?? null,
      ],
    );
  }

  /**
   * Reads the whole chain in order and recomputes each row's hash: ok, or the first row changed,
   * removed or inserted behind the service's back.
   */
  async verify(): Promise<AuditVerification> {
    let checked = 0;
    let lastSeq = 0;
    let lastHash: string | null = null;
    for (;;) {
      const rows = (await this.dataSource.query(
        `SELECT e.seq::text AS seq, e.id, e.hash, e.previous_hash, audit_event_digest(e) AS expected
           FROM audit_events e WHERE e.seq > $1 ORDER BY e.seq LIMIT ${VERIFY_BATCH}`,
        [lastSeq],
      )) as {
        seq: string;
        id: string;
        hash: string;
        previous_hash: string | null;
        expected: string;
      }[];
      for (const row of rows) {
        const seq = Number(row.seq);
        const problem =
          seq !== lastSeq + 1
            ? `a row is missing before it (seq ${lastSeq + 1})`
            : row.previous_hash !== lastHash
              ? 'its link to the previous row was changed'
              : row.hash !== row.expected
                ? 'its content was changed after it was written'
                : null;
        if (problem) return { ok: false, checked, first_broken: { seq, id: row.id, problem } };
        checked += 1;
        lastSeq = seq;
        lastHash = row.hash;
      }
      if (rows.length < VERIFY_BATCH) return { ok: true, checked };
    }
  }
}
