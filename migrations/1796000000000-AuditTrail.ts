import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit trail (audit_events), append-only and hash-chained by the database itself:
 * - audit_event_digest(row): sha256 over the previous hash and the row's content, written as a
 *   JSON array (jsonb's text is canonical, instants in UTC to the microsecond), the one
 *   definition both the insert and the verification use;
 * - on insert (READ COMMITTED only), under a transaction-level advisory lock, the row takes the
 *   next seq, the time, and the last row's hash as its previous_hash, then its own hash;
 * - UPDATE, DELETE and TRUNCATE are refused. (Whoever can drop the triggers can still change a
 *   row; GET /v1/admin/audit/verify then finds it, as its hash no longer matches.)
 * A new, empty table: nothing to build online.
 */
export class AuditTrail1796000000000 implements MigrationInterface {
  name = 'AuditTrail1796000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "audit_events" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "seq" bigint NOT NULL, "at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT clock_timestamp(), "actor_kind" character varying(16) NOT NULL, "actor_id" character varying(200), "actor_email" character varying(254), "roles" text array NOT NULL DEFAULT '{}', "action" character varying(64) NOT NULL, "target" character varying(200), "before" jsonb, "after" jsonb, "reason" text, "outcome" character varying(16) NOT NULL, "status" integer, "ip" character varying(64), "user_agent" character varying(300), "request_id" character varying(100), "trace_id" character varying(32), "previous_hash" character(64), "hash" character(64) NOT NULL, CONSTRAINT "PK_audit_events" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_audit_events_seq" ON "audit_events" ("seq")`);
    await queryRunner.query(`CREATE INDEX "idx_audit_events_at" ON "audit_events" ("at", "id")`);
    await queryRunner.query(
      `CREATE INDEX "idx_audit_events_actor" ON "audit_events" ("actor_id", "at", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_audit_events_action" ON "audit_events" ("action", "at", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_audit_events_target" ON "audit_events" ("target", "at", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_audit_events_request" ON "audit_events" ("request_id", "at", "id")`,
    );
    await queryRunner.query(`
      CREATE FUNCTION audit_event_digest(e audit_events) RETURNS character(64)
      LANGUAGE sql IMMUTABLE AS $$
        SELECT encode(sha256(convert_to(COALESCE(e.previous_hash, '') || jsonb_build_array(
          e.seq, e.id, to_char(e.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
          e.actor_kind, e.actor_id, e.actor_email, e.roles, e.action, e.target, e.before, e.after,
          e.reason, e.outcome, e.status, e.ip, e.user_agent, e.request_id, e.trace_id)::text,
          'UTF8')), 'hex')
      $$`);
    await queryRunner.query(`
      CREATE FUNCTION audit_events_chain() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE last record;
      BEGIN
        -- The last row must be the last committed one: a snapshot taken earlier would miss it.
        IF current_setting('transaction_isolation') <> 'read committed' THEN
          RAISE EXCEPTION 'audit_events is written in READ COMMITTED transactions only'
            USING ERRCODE = 'invalid_transaction_state';
        END IF;
        PERFORM pg_advisory_xact_lock(hashtext('audit_events'));
        SELECT seq, hash INTO last FROM audit_events ORDER BY seq DESC LIMIT 1;
        -- Stamped under the lock, so that time follows the chain (and no caller backdates a row).
        NEW.at := clock_timestamp();
        NEW.seq := COALESCE(last.seq, 0) + 1;
        NEW.previous_hash := last.hash;
        NEW.hash := audit_event_digest(NEW);
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION audit_events_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP
          USING ERRCODE = 'insufficient_privilege';
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER audit_events_chain BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_events_chain()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_events_refuse_change()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events FOR EACH STATEMENT EXECUTE FUNCTION audit_events_refuse_change()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    // The digest takes the table's row type: it goes first.
    await queryRunner.query(`DROP FUNCTION audit_event_digest(audit_events)`);
    await queryRunner.query(`DROP TABLE "audit_events"`);
    await queryRunner.query(`DROP FUNCTION audit_events_refuse_change()`);
    await queryRunner.query(`DROP FUNCTION audit_events_chain()`);
  }
}
