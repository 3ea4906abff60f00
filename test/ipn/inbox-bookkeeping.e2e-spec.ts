import { randomUUID } from 'node:crypto';
import { DataSource, QueryRunner } from 'typeorm';
import { GIVE_BACK, MARK_QUEUED } from '@app/checkout/ipn/worker/inbox-relay';
import { COMMIT_WITHOUT_FLUSH_WAIT, PreparedStatement, runPrepared } from '@app/persistence';
import { openTestDataSource } from '../support/database';

/**
 * The relay marks a whole claimed batch once it is queued, while verifiers, whose jobs start at
 * once, already change some of those rows (a cover locks several rows of one order). If the
 * relay waited for them the two could deadlock (PostgreSQL then fails one after a second); it
 * leaves a row a verifier holds to the verifier instead.
 */
describe('IPN inbox relay: marking a batch never waits for a row a verifier holds', () => {
  let dataSource: DataSource;
  let verifier: QueryRunner;

  beforeAll(async () => {
    dataSource = await openTestDataSource();
  });
  afterEach(async () => {
    if (verifier?.isTransactionActive) await verifier.rollbackTransaction();
    await verifier?.release();
  });
  afterAll(async () => {
    await dataSource?.destroy();
  });

  async function inboxRows(count: number): Promise<string[]> {
    const ids = Array.from({ length: count }, () => randomUUID());
    await dataSource.query(
      `INSERT INTO ipn_notifications (id, order_tracking_id, merchant_reference, notification_type,
                                      http_method, payload, status, next_attempt_at)
       SELECT id, 'lock-' || id, 'lock-ref', 'IPNCHANGE', 'POST', '{}'::jsonb, 'received',
              now() + interval '5 minutes'
         FROM unnest($1::uuid[]) AS id`,
      [ids],
    );
    return ids;
  }

  /** Another connection holds the row as a verifier's cover does, until rolled back. */
  async function holdRow(id: string): Promise<void> {
    verifier = dataSource.createQueryRunner();
    await verifier.startTransaction();
    await verifier.query(`UPDATE ipn_notifications SET attempts = attempts + 1 WHERE id = $1`, [
      id,
    ]);
  }

  const statusesOf = async (ids: string[]) =>
    Object.fromEntries(
      (
        (await dataSource.query(
          `SELECT id, status, next_attempt_at <= now() AS due FROM ipn_notifications WHERE id = ANY($1)`,
          [ids],
        )) as { id: string; status: string; due: boolean }[]
      ).map((row) => [row.id, row]),
    );

  /** Runs the statement with a lock timeout: waiting for the held row fails it instead of hanging. */
  async function runWithoutWaiting(statement: typeof MARK_QUEUED, ids: string[]): Promise<void> {
    await dataSource.transaction(async (manager) => {
      await manager.query(`SET LOCAL lock_timeout = '2s'`);
      await manager.query(statement.text, [ids]);
    });
  }

  it('marks the rest of the batch queued and leaves the held row to its verifier', async () => {
    const ids = await inboxRows(3);
    await holdRow(ids[1]);

    await runWithoutWaiting(MARK_QUEUED, ids);

    const rows = await statusesOf(ids);
    expect(rows[ids[0]].status).toBe('queued');
    expect(rows[ids[2]].status).toBe('queued');
    expect(rows[ids[1]].status).toBe('received');
  });

  it('gives back the rest of the batch and leaves the held row under its lease', async () => {
    const ids = await inboxRows(3);
    await holdRow(ids[0]);

    await runWithoutWaiting(GIVE_BACK, ids);

    const rows = await statusesOf(ids);
    expect(rows[ids[1]].due).toBe(true);
    expect(rows[ids[2]].due).toBe(true);
    expect(rows[ids[0]].due).toBe(false);
  });
});

/**
 * The relay's and the cover's bookkeeping commits without waiting for the WAL flush (a crash may
 * lose it; it is redone). The setting must hold for that statement's own commit and never stay
 * on the pooled connection, where an order's outcome commits next.
 */
describe('IPN inbox bookkeeping: commits without a flush wait, for its own transaction only', () => {
  let single: DataSource;

  beforeAll(async () => {
    // One connection, so that what a statement leaves on its session is seen by the next.
    single = await openTestDataSource(1);
  });
  afterAll(async () => {
    await single?.destroy();
  });

  const TOUCH: PreparedStatement = {
    name: 'test-touch-without-flush-wait',
    text: `UPDATE ipn_notifications SET attempts = attempts
            WHERE id = ANY($1::uuid[]) AND ${COMMIT_WITHOUT_FLUSH_WAIT}`,
  };

  async function oneRow(): Promise<string> {
    const id = randomUUID();
    await single.query(
      `INSERT INTO ipn_notifications (id, order_tracking_id, http_method, payload, status)
       VALUES ($1::uuid, 'flush-' || $1::text, 'POST', '{}'::jsonb, 'received')`,
      [id],
    );
    return id;
  }

  const setting = async (runner?: QueryRunner) =>
    (
      (await (runner ?? single).query('SHOW synchronous_commit')) as {
        synchronous_commit: string;
      }[]
    )[0].synchronous_commit;

  it('is off in the transaction that changed a row, and on again after it', async () => {
    const id = await oneRow();
    const runner = single.createQueryRunner();
    try {
      await runner.startTransaction();
      expect(await setting(runner)).toBe('on');
      await runner.query(TOUCH.text, [[id]]);
      expect(await setting(runner)).toBe('off');
      await runner.commitTransaction();
      expect(await setting(runner)).toBe('on');
    } finally {
      await runner.release();
    }
  });

  it('leaves the pooled connection as it was after an autocommit statement', async () => {
    const id = await oneRow();
    await runPrepared(single, TOUCH, [[id]]);
    expect(await setting()).toBe('on');
  });
});
