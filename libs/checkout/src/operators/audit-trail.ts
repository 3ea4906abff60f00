import { cutText } from '@app/domain';
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { activeTraceId, counter } from '@app/common';
import { AuditOutcome } from '@app/persistence';
import type { AuditOrigin } from '../http/request-origin';
import { currentAct } from './operator-act';
import { AuditActor, auditActorOf } from './operator';

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
  /** The request's trace, when the row is written after it (a queued refusal); else the current one. */
  traceId?: string | null;
}

export interface AuditVerification {
  ok: boolean;
  checked: number;
  /** The last row of the chain: keep it outside the database, and give it to a later check. */
  head: { seq: number; hash: string } | null;
  /** The first row whose hash, link or place in the chain is not what was written. */
  first_broken?: { seq: number; id: string | null; problem: string };
}

/** A head kept from an earlier verification: the chain must still hold it, unchanged. */
export interface AuditAnchor {
  seq: number;
  hash: string;
}

/** Rows read per statement while verifying the chain. */
const VERIFY_BATCH = 10_000;
/**
 * Refusals waiting to be written, at most: the guard answers at once and the trail writes them
 * behind it, a batch per transaction, one writer at a time (the chain's lock serializes them
 * anyway), so a flood of bad keys neither holds the api's connections nor delays its answers.
 * Past it a refusal is counted (audit_refusals_unrecorded_total), not written.
 */
const REFUSALS_PENDING_MAX = 1000;
const REFUSALS_PER_BATCH = 50;
/** A batch's statements give up after this long (its refusals are counted as not written). */
const REFUSAL_WRITE_TIMEOUT_MS = 2000;

const unrecorded = counter({
  name: 'audit_refusals_unrecorded_total',
  help: 'Refused admin requests (or acts already answered) not written to the audit trail: too many at once, or the database did not take the row in time.',
  labelNames: ['why'] as const,
});

/**
 * The one writer and verifier of the audit trail (audit_events). A change's row is written in the
 * change's own transaction (pass its manager), so a change is never without its row, nor a row
 * without its change; the database chains it (migrations/1796000000000-AuditTrail.ts).
 */
@Injectable()
export class AuditTrail implements OnModuleDestroy {
  private readonly logger = new Logger(AuditTrail.name);
  private readonly pendingRefusals: AuditEntry[] = [];
  private writing: Promise<void> | null = null;

  constructor(private readonly dataSource: DataSource) {}

  /**
   * A refused request (a refusal changes nothing): queued and written shortly after in a batch of
   * its own, with a time limit. Never throws and never waits: the request is refused either way.
   */
  recordRefusal(entry: Omit<AuditEntry, 'outcome'>): void {
    if (this.pendingRefusals.length >= REFUSALS_PENDING_MAX) {
      unrecorded.inc({ why: 'too_many_waiting' });
      return;
    }
    this.pendingRefusals.push({ ...entry, outcome: 'refused', traceId: activeTraceId() ?? null });
    this.writing ??= this.writeRefusals().finally(() => {
      this.writing = null;
    });
  }

  /** Resolves once every refusal queued so far is written (or counted as not written). */
  async refusalsWritten(): Promise<void> {
    while (this.writing) await this.writing;
  }

  async onModuleDestroy(): Promise<void> {
    await this.refusalsWritten();
  }

  private async writeRefusals(): Promise<void> {
    while (this.pendingRefusals.length > 0) {
      const batch = this.pendingRefusals.splice(0, REFUSALS_PER_BATCH);
      try {
        await this.dataSource.transaction(async (manager) => {
          await manager.query(`SET LOCAL statement_timeout = ${REFUSAL_WRITE_TIMEOUT_MS}`);
          await manager.query(`SET LOCAL lock_timeout = ${REFUSAL_WRITE_TIMEOUT_MS}`);
          for (const entry of batch) await this.record(entry, manager);
        });
      } catch (error) {
        unrecorded.inc({ why: 'not_written' }, batch.length);
        this.logger.error(
          `${batch.length} refusal(s) not written to the audit trail: ${(error as Error).message}`,
        );
      }
    }
  }

  async record(entry: AuditEntry, manager?: EntityManager): Promise<void> {
    await insertAuditRow(manager ?? this.dataSource.manager, entry);
  }

  /** A row about an act already answered: one that cannot be written is logged and counted. */
  async recordAfterAnswer(entry: AuditEntry): Promise<void> {
    try {
      await this.record(entry);
    } catch (error) {
      unrecorded.inc({ why: 'not_written' });
      this.logger.error(`an act's row not written to the audit trail: ${(error as Error).message}`);
    }
  }

  /**
   * Reads the whole chain in order and recomputes each row's hash: ok, or the first row changed,
   * removed or inserted behind the service's back. Rows removed from the end, or a chain rewritten
   * whole by someone who can recompute hashes, only show against a head kept outside the
   * database: given one (`anchor`), the chain must still hold it unchanged.
   */
  async verify(anchor?: AuditAnchor): Promise<AuditVerification> {
    let checked = 0;
    let lastSeq = 0;
    let lastHash: string | null = null;
    let anchorSeen = false;
    const broken = (seq: number, id: string | null, problem: string): AuditVerification => {
      this.logger.warn({ seq, problem }, 'the audit trail was changed behind the service');
      return {
        ok: false,
        checked,
        head: lastHash === null ? null : { seq: lastSeq, hash: lastHash },
        first_broken: { seq, id, problem },
      };
    };
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
                : anchor && seq === anchor.seq && row.hash !== anchor.hash
                  ? 'it is not the row the kept head names (the chain was rewritten)'
                  : null;
        if (problem) return broken(seq, row.id, problem);
        if (anchor && seq === anchor.seq) anchorSeen = true;
        checked += 1;
        lastSeq = seq;
        lastHash = row.hash;
      }
      if (rows.length < VERIFY_BATCH) break;
    }
    if (anchor && !anchorSeen) {
      return broken(anchor.seq, null, 'the kept head is gone: rows were removed from the end');
    }
    return {
      ok: true,
      checked,
      head: lastHash === null ? null : { seq: lastSeq, hash: lastHash },
    };
  }
}

/** What an act's row says beyond its operator and origin. */
export type ActEntry = Pick<AuditEntry, 'action' | 'target' | 'before' | 'after' | 'reason'> &
  Partial<Pick<AuditEntry, 'outcome' | 'status'>>;

/**
 * The current admin act's row (its operator and origin), in the change's own transaction;
 * nothing when no operator acts (the shop, the gateway, the worker).
 */
export async function recordCurrentAct(manager: EntityManager, entry: ActEntry): Promise<void> {
  const act = currentAct();
  if (!act) return;
  await insertAuditRow(manager, {
    actor: auditActorOf(act.operator),
    outcome: 'succeeded',
    origin: act.origin,
    ...entry,
  });
  act.recorded = true;
}

async function insertAuditRow(runner: EntityManager, entry: AuditEntry): Promise<void> {
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
      entry.traceId !== undefined ? entry.traceId : (activeTraceId() ?? null),
    ],
  );
}
