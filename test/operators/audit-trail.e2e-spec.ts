import request from 'supertest';
import { DataSource } from 'typeorm';
import { ownTestDatabase } from '../support/database';
import { RunningService, startService, waitFor } from '../support/service';

interface AuditRow {
  seq: string;
  actor_kind: string;
  actor_id: string | null;
  action: string;
  target: string | null;
  reason: string | null;
  outcome: string;
  status: number | null;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
  hash: string;
  previous_hash: string | null;
}

/**
 * The audit trail against the api and PostgreSQL, on a database of its own (it counts every row,
 * and a test breaks the chain on purpose): refusals written, the trail read and its reads written,
 * the table append-only, the chain verified and a change behind the service's back found.
 */
describe('audit trail (api + Postgres)', () => {
  let database: Awaited<ReturnType<typeof ownTestDatabase>>;
  let dataSource: DataSource;
  let service: RunningService;

  beforeAll(async () => {
    database = await ownTestDatabase('audit');
    dataSource = database.dataSource;
    service = await startService();
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await database?.drop();
  });

  const rows = async (action: string): Promise<AuditRow[]> =>
    dataSource.query(`SELECT * FROM audit_events WHERE action = $1 ORDER BY seq`, [action]);
  /** Refusals are written just behind their answers: the rows once there are `count`. */
  const refusals = (count: number) =>
    waitFor(`${count} refusals written`, async () => {
      const written = await rows('request.refused');
      return written.length >= count ? written : null;
    });
  const admin = (path: string) =>
    request(service.apiUrl).get(path).set(service.adminAuth).set('User-Agent', 'audit-test');

  it('writes every refused request to an admin route, naming the route and never the key', async () => {
    const unknownKey = 'admin_not_a_key_of_ours_123456';
    const none = await request(service.apiUrl)
      .get('/v1/admin/orders?status=pending')
      .set('X-Request-Id', 'req-no-key');
    const unknown = await request(service.apiUrl)
      .get('/v1/admin/orders/ORDER-7')
      .set('Authorization', `Bearer ${unknownKey}`)
      .set('X-Request-Id', 'req-unknown-key');
    const shop = await request(service.apiUrl)
      .post('/v1/admin/orders/ORDER-7/cancel')
      .set(service.shopAuth)
      .set('User-Agent', 'a-shop/1.0')
      .send({ note: 'x' });
    expect([none.status, unknown.status, shop.status]).toEqual([401, 401, 403]);

    const refused = await refusals(3);
    expect(refused).toHaveLength(3);
    expect(refused.map((r) => [r.actor_kind, r.actor_id, r.target, r.reason, r.status])).toEqual([
      ['anonymous', null, 'GET /v1/admin/orders', 'no key', 401],
      ['anonymous', null, 'GET /v1/admin/orders/:reference', 'an unknown key', 401],
      [
        'bootstrap_key',
        'shop:test-shop',
        'POST /v1/admin/orders/:reference/cancel',
        'a shop key on an admin route',
        403,
      ],
    ]);
    expect(refused.map((r) => r.outcome)).toEqual(['refused', 'refused', 'refused']);
    expect(refused[0].request_id).toBe('req-no-key');
    expect(refused[2].user_agent).toBe('a-shop/1.0');
    expect(refused[0].ip).toBe('127.0.0.1');
    const written = JSON.stringify(await dataSource.query(`SELECT * FROM audit_events`));
    for (const secret of [unknownKey, service.shopKey, service.adminKey])
      expect(written).not.toContain(secret);
  });

  it('lists the trail newest first with filters and cursor pages, and writes each read', async () => {
    const first = await admin('/v1/admin/audit?action=request.refused&limit=2');
    expect(first.status).toBe(200);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.body.items.map((e: { target: string }) => e.target)).toEqual([
      'POST /v1/admin/orders/:reference/cancel',
      'GET /v1/admin/orders/:reference',
    ]);
    const second = await admin(
      `/v1/admin/audit?action=request.refused&limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`,
    );
    expect(second.body.items.map((e: { target: string }) => e.target)).toEqual([
      'GET /v1/admin/orders',
    ]);
    expect(second.body.next_cursor).toBeNull();
    const byActor = await admin('/v1/admin/audit?actor=shop:test-shop');
    expect(byActor.body.items).toHaveLength(1);
    const byRequest = await admin('/v1/admin/audit?request_id=req-unknown-key');
    expect(byRequest.body.items.map((e: { reason: string }) => e.reason)).toEqual([
      'an unknown key',
    ]);

    const reads = await rows('audit.read');
    expect(reads).toHaveLength(4);
    expect(reads[0]).toMatchObject({
      actor_kind: 'bootstrap_key',
      actor_id: 'test-admin',
      outcome: 'succeeded',
      user_agent: 'audit-test',
    });
    // A read is listed too, under its own action.
    const listed = await admin('/v1/admin/audit?action=audit.read&limit=1');
    expect(listed.body.items[0]).toMatchObject({ action: 'audit.read', actor_id: 'test-admin' });
  });

  it('is append-only: the database refuses to change, delete or empty it', async () => {
    await expect(
      dataSource.transaction('REPEATABLE READ', (manager) =>
        manager.query(
          `INSERT INTO audit_events (actor_kind, action, outcome, seq, hash) VALUES ('anonymous', 'x', 'refused', 0, '')`,
        ),
      ),
    ).rejects.toThrow(/READ COMMITTED transactions only/);
    await expect(dataSource.query(`UPDATE audit_events SET reason = 'edited'`)).rejects.toThrow(
      /append-only: UPDATE refused/,
    );
    await expect(dataSource.query(`DELETE FROM audit_events`)).rejects.toThrow(
      /append-only: DELETE refused/,
    );
    await expect(dataSource.query(`TRUNCATE audit_events`)).rejects.toThrow(
      /append-only: TRUNCATE refused/,
    );
  });

  it('chains rows written at once in one order, and verify finds a row changed behind its back', async () => {
    const refusedBefore = (await rows('request.refused')).length;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => request(service.apiUrl).get('/v1/admin/refunds')),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(401));
    // Every one written (none lost to a collision in the chain, none dropped).
    expect(await refusals(refusedBefore + 20)).toHaveLength(refusedBefore + 20);
    const chain: AuditRow[] = await dataSource.query(`SELECT * FROM audit_events ORDER BY seq`);
    chain.forEach((row, i) => {
      expect(Number(row.seq)).toBe(i + 1);
      expect(row.previous_hash).toBe(i === 0 ? null : chain[i - 1].hash);
    });
    const good = await admin('/v1/admin/audit/verify');
    expect(good.status).toBe(200);
    const last = chain[chain.length - 1];
    expect(good.body).toEqual({
      ok: true,
      checked: chain.length,
      head: { seq: Number(last.seq), hash: last.hash },
    });
    // The head, kept outside: while it stands, a check against it passes.
    const kept = good.body.head as { seq: number; hash: string };
    const anchored = await admin(`/v1/admin/audit/verify?seq=${kept.seq}&hash=${kept.hash}`);
    expect(anchored.body.ok).toBe(true);

    // The last rows removed past the trigger: the chain alone still holds together, the head
    // kept outside does not.
    await dataSource.query(`ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only`);
    await dataSource.query(`DELETE FROM audit_events WHERE seq >= $1`, [kept.seq]);
    await dataSource.query(`ALTER TABLE audit_events ENABLE TRIGGER audit_events_append_only`);
    expect((await admin('/v1/admin/audit/verify')).body.ok).toBe(true);
    const cut = await admin(`/v1/admin/audit/verify?seq=${kept.seq}&hash=${kept.hash}`);
    expect(cut.body).toMatchObject({ ok: false, first_broken: { seq: kept.seq } });
    const half = await admin(`/v1/admin/audit/verify?seq=${kept.seq}`);
    expect(half.status).toBe(400);

    // Someone with the database's keys edits a refusal, past the trigger.
    const edited = chain[4];
    await dataSource.query(`ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only`);
    await dataSource.query(`UPDATE audit_events SET reason = 'nothing to see' WHERE seq = $1`, [
      edited.seq,
    ]);
    await dataSource.query(`ALTER TABLE audit_events ENABLE TRIGGER audit_events_append_only`);
    const broken = await admin('/v1/admin/audit/verify');
    expect(broken.body).toEqual({
      ok: false,
      checked: 4,
      head: { seq: 4, hash: chain[3].hash },
      first_broken: {
        seq: 5,
        id: expect.any(String),
        problem: 'its content was changed after it was written',
      },
    });
    const verifications = await rows('audit.verified');
    expect(verifications.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  });
});
