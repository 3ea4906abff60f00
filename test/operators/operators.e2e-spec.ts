import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AdminFixtures, AdminSuite, startAdminSuite } from '../admin/admin-fixtures';
import {
  IdentityProvider,
  signInOverHttp,
  startIdentityProvider,
} from '../support/identity-provider';
import { freePorts, RunningService, waitFor } from '../support/service';

interface AuditRow {
  actor_kind: string;
  actor_id: string | null;
  actor_email: string | null;
  roles: string[];
  action: string;
  target: string | null;
  reason: string | null;
  outcome: string;
  status: number | null;
}

/**
 * People and machines as operators, against a real OpenID provider (oidc-provider in a child
 * process, its development login): roles from groups, sessions with CSRF, permissions per route,
 * four-eyes refunds, scoped keys (revoked, rolled), every act and refusal in the audit trail.
 */
/** Logins of this file's own (the provider gives `alice.<run>` alice's groups): other files sign in too. */
const RUN = randomBytes(3).toString('hex');
const person = (name: string) => `${name}.${RUN}`;

describe('operators: sign-in, roles, keys, approvals (api + OpenID provider + Postgres)', () => {
  let idp: IdentityProvider;
  let service: RunningService;
  let dataSource: DataSource;
  let fixtures: AdminFixtures;
  let suite: AdminSuite | undefined;
  const sessions = new Map<string, { cookie: string; csrf: string }>();

  beforeAll(async () => {
    const [apiPort, idpPort] = await freePorts(2);
    idp = await startIdentityProvider(`http://127.0.0.1:${apiPort}`, idpPort);
    suite = await startAdminSuite({
      port: apiPort,
      env: {
        ...idp.env,
        REFUND_APPROVAL_THRESHOLD: 'KES:1000,UGX:1500000',
        ADMIN_SESSION_IDLE_MINUTES: '15',
      },
    });
    ({ service, dataSource, fixtures } = suite);
  }, 60_000);
  afterAll(async () => {
    await suite?.close();
    await idp?.close();
  });

  /** A person signed in (once per login), with their cookie and CSRF token. */
  async function as(login: string): Promise<{ cookie: string; csrf: string }> {
    const known = sessions.get(login);
    if (known) return known;
    const attempt = await signInOverHttp(service.apiUrl, person(login));
    expect(attempt.callback.status).toBe(200);
    const cookie = `pc_session=${attempt.session}`;
    const me = await request(service.apiUrl).get('/v1/admin/session').set('Cookie', cookie);
    expect(me.status).toBe(200);
    const signedIn = { cookie, csrf: me.body.session.csrf_token as string };
    sessions.set(login, signedIn);
    return signedIn;
  }
  const get = async (login: string, path: string) =>
    request(service.apiUrl)
      .get(path)
      .set('Cookie', (await as(login)).cookie);
  const post = async (login: string, path: string, body: object = {}) => {
    const { cookie, csrf } = await as(login);
    return request(service.apiUrl)
      .post(path)
      .set('Cookie', cookie)
      .set('X-CSRF-Token', csrf)
      .send(body);
  };
  const trail = async (where: string, params: unknown[]): Promise<AuditRow[]> =>
    (await dataSource.query(
      `SELECT actor_kind, actor_id, actor_email, roles, action, target, reason, outcome, status
         FROM audit_events WHERE ${where} ORDER BY seq`,
      params,
    )) as AuditRow[];

  it('maps groups to roles at sign-in; a person whose groups map to nothing has no role', async () => {
    const admin = await get('alice', '/v1/admin/session');
    expect(admin.body.operator).toMatchObject({
      kind: 'person',
      id: person('alice'),
      email: `${person('alice')}@example.test`,
      roles: ['admin'],
    });
    expect(admin.body.operator.permissions).toEqual(
      expect.arrayContaining(['refunds:approve', 'audit:read', 'api_keys:manage']),
    );
    expect((await get('vic', '/v1/admin/session')).body.operator).toMatchObject({
      roles: ['viewer'],
      permissions: ['admin:read'],
    });
    const nobody = await get('nora', '/v1/admin/session');
    expect(nobody.body.operator).toMatchObject({ roles: [], permissions: [] });
    const refused = await get('nora', '/v1/admin/orders');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'forbidden', permission: 'admin:read' });
    expect((await get('vic', '/v1/admin/orders')).status).toBe(200);
    expect(
      await trail(`action = 'session.signed_in' AND actor_id = $1`, [person('alice')]),
    ).toEqual([
      expect.objectContaining({ actor_kind: 'person', roles: ['admin'], outcome: 'succeeded' }),
    ]);
  });

  it("refuses a viewer's refund (403) and writes the refusal; nothing reaches the gateway", async () => {
    const paid = await fixtures.paidOrder('card', '500.00');
    const before = await fixtures.refundRequests();
    const refused = await post('vic', `/v1/admin/orders/${paid.merchantReference}/refunds`, {
      amount: '500.00',
      reason: 'asked',
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'forbidden', permission: 'refunds:request' });
    await waitFor(
      'the refusal in the trail',
      async () =>
        (
          await trail(`action = 'request.refused' AND actor_id = $2 AND target = $1`, [
            'POST /v1/admin/orders/:reference/refunds',
            person('vic'),
          ])
        ).length === 1,
    );
    expect(await fixtures.refundRequests()).toBe(before);
  });

  it("refuses finance's files to a viewer (403 naming finance:export) and writes each refusal", async () => {
    for (const path of ['/v1/admin/exports/payments.csv', '/v1/admin/reports/daily']) {
      const refused = await get('vic', `${path}?from=2015-03-10&to=2015-03-10`);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'forbidden', permission: 'finance:export' });
    }
    await waitFor(
      'both refusals in the trail',
      async () =>
        (
          await trail(`action = 'request.refused' AND actor_id = $1 AND target = ANY($2)`, [
            person('vic'),
            ['GET /v1/admin/exports/payments.csv', 'GET /v1/admin/reports/daily'],
          ])
        ).length === 2,
    );
    // A refund approver closes the books: the same file is theirs to take.
    expect(
      (await get('fiona', '/v1/admin/reports/daily?from=2015-03-10&to=2015-03-10')).status,
    ).toBe(200);
  });

  it('refuses a console change without its CSRF token, and with a wrong one', async () => {
    const { cookie } = await as('alice');
    const none = await request(service.apiUrl)
      .post('/v1/admin/api-keys')
      .set('Cookie', cookie)
      .send({ name: 'no-csrf', scopes: ['admin:read'] });
    expect(none.status).toBe(403);
    expect(none.body.error.code).toBe('csrf_token_invalid');
    const wrong = await request(service.apiUrl)
      .post('/v1/admin/api-keys')
      .set('Cookie', cookie)
      .set('X-CSRF-Token', 'not-the-token')
      .send({ name: 'no-csrf', scopes: ['admin:read'] });
    expect(wrong.status).toBe(403);
    const made = (await dataSource.query(
      `SELECT count(*)::int AS n FROM api_keys WHERE name = 'no-csrf'`,
    )) as { n: number }[];
    expect(made[0].n).toBe(0);
    await waitFor(
      'the CSRF refusals in the trail',
      async () =>
        (
          await trail(`action = 'request.refused' AND actor_id = $1 AND reason LIKE '%CSRF%'`, [
            person('alice'),
          ])
        ).length === 2,
    );
  });

  it('four eyes: a refund above the threshold waits; its requester cannot approve it; a second person’s approval reaches the gateway once', async () => {
    const paid = await fixtures.paidOrder('card', '1500.00');
    const before = await fixtures.refundRequests();
    const asked = await post('alice', `/v1/admin/orders/${paid.merchantReference}/refunds`, {
      amount: '1500.00',
      reason: 'returned the tickets',
    });
    expect(asked.status).toBe(202);
    const approval = asked.body.refund_approval;
    expect(approval).toMatchObject({
      status: 'pending',
      amount: '1500.00',
      currency: 'KES',
      requested_by: `${person('alice')}@example.test`,
      order_reference: paid.merchantReference,
    });
    expect(await fixtures.refundRequests()).toBe(before);

    // One open request per payment.
    const again = await post('sam', `/v1/admin/orders/${paid.merchantReference}/refunds`, {
      amount: '1500.00',
      reason: 'again',
    });
    expect(again.status).toBe(409);
    expect(again.body.error.refund_approval.id).toBe(approval.id);

    const pending = await get('vic', '/v1/admin/refund-approvals');
    expect(pending.body.items.map((a: { id: string }) => a.id)).toContain(approval.id);

    const self = await post('alice', `/v1/admin/refunds/${approval.id}/approve`);
    expect(self.status).toBe(403);
    expect(self.body.error.code).toBe('self_approval_refused');
    const requester = await post('sam', `/v1/admin/refunds/${approval.id}/approve`);
    expect(requester.status).toBe(403);
    expect(requester.body.error.permission).toBe('refunds:approve');

    const approved = await post('fiona', `/v1/admin/refunds/${approval.id}/approve`);
    expect(approved.body).toMatchObject({ refund: { status: 'accepted' } });
    expect(approved.status).toBe(201);
    expect(approved.body.refund).toMatchObject({
      id: approval.id,
      status: 'accepted',
      amount: '1500.00',
    });
    const twice = await post('frank', `/v1/admin/refunds/${approval.id}/approve`);
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe('refund_approval_not_pending');
    expect(await fixtures.refundRequests()).toBe(before + 1);

    const acts = await trail(`target = $1 AND action LIKE 'order.refund%'`, [
      `order:${paid.merchantReference}`,
    ]);
    expect(acts.map((a) => [a.action, a.actor_id])).toEqual([
      ['order.refund_approval_requested', person('alice')],
      ['order.refund_approval_approved', person('fiona')],
      ['order.refund_accepted', person('fiona')],
    ]);
  });

  it('a refund under the threshold is made at once; a declined request frees the payment', async () => {
    const small = await fixtures.paidOrder('card', '800.00');
    const made = await post('sam', `/v1/admin/orders/${small.merchantReference}/refunds`, {
      amount: '800.00',
      reason: 'small',
    });
    expect(made.status).toBe(201);
    expect(made.body.refund).toMatchObject({
      status: 'accepted',
      requested_by: `${person('sam')}@example.test`,
    });

    const large = await fixtures.paidOrder('card', '2000.00');
    const asked = await post('sam', `/v1/admin/orders/${large.merchantReference}/refunds`, {
      amount: '2000.00',
      reason: 'large',
    });
    expect(asked.status).toBe(202);
    const noReason = await post(
      'fiona',
      `/v1/admin/refunds/${asked.body.refund_approval.id}/reject`,
      {},
    );
    expect(noReason.status).toBe(400);
    expect(noReason.body.error.errors[0].field).toBe('reason');
    const declined = await post(
      'fiona',
      `/v1/admin/refunds/${asked.body.refund_approval.id}/reject`,
      { reason: 'not eligible' },
    );
    expect(declined.status).toBe(200);
    expect(declined.body.refund_approval).toMatchObject({
      status: 'declined',
      decided_by: `${person('fiona')}@example.test`,
      decision_reason: 'not eligible',
    });
    const anew = await post('sam', `/v1/admin/orders/${large.merchantReference}/refunds`, {
      amount: '2000.00',
      reason: 'large, again',
    });
    expect(anew.status).toBe(202);
  });

  it('an approval expires after a day: it can no longer be approved, and a new request may be made', async () => {
    const paid = await fixtures.paidOrder('card', '3000.00');
    const asked = await post('sam', `/v1/admin/orders/${paid.merchantReference}/refunds`, {
      amount: '3000.00',
      reason: 'late',
    });
    const id = asked.body.refund_approval.id as string;
    await dataSource.query(
      `UPDATE refund_approvals SET requested_at = now() - interval '25 hours', expires_at = now() - interval '1 hour' WHERE id = $1`,
      [id],
    );
    const late = await post('fiona', `/v1/admin/refunds/${id}/approve`);
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('refund_approval_expired');
    const anew = await post('sam', `/v1/admin/orders/${paid.merchantReference}/refunds`, {
      amount: '3000.00',
      reason: 'late, again',
    });
    expect(anew.status).toBe(202);
    const [row] = (await dataSource.query(`SELECT status FROM refund_approvals WHERE id = $1`, [
      id,
    ])) as { status: string }[];
    expect(row.status).toBe('expired');
  });

  it('ends a session idle for longer than ADMIN_SESSION_IDLE_MINUTES, and signs out everywhere', async () => {
    const attempt = await signInOverHttp(service.apiUrl, person('dev'));
    const cookie = `pc_session=${attempt.session}`;
    expect(
      (await request(service.apiUrl).get('/v1/admin/session').set('Cookie', cookie)).status,
    ).toBe(200);
    await dataSource.query(
      `UPDATE operator_sessions SET last_seen_at = now() - interval '16 minutes'
        WHERE subject = $1 AND revoked_at IS NULL`,
      [person('dev')],
    );
    const idle = await request(service.apiUrl).get('/v1/admin/orders').set('Cookie', cookie);
    expect(idle.status).toBe(401);

    const first = await signInOverHttp(service.apiUrl, person('audrey'));
    const second = await signInOverHttp(service.apiUrl, person('audrey'));
    const firstCookie = `pc_session=${first.session}`;
    const me = await request(service.apiUrl).get('/v1/admin/session').set('Cookie', firstCookie);
    const out = await request(service.apiUrl)
      .post('/v1/admin/session/sign-out-everywhere')
      .set('Cookie', firstCookie)
      .set('X-CSRF-Token', me.body.session.csrf_token)
      .send({});
    expect(out.status).toBe(200);
    expect(out.body.sessions_ended).toBe(2);
    const other = await request(service.apiUrl)
      .get('/v1/admin/audit')
      .set('Cookie', `pc_session=${second.session}`);
    expect(other.status).toBe(401);
  });

  it('scoped keys: the secret once, only scopes one holds, refused when revoked, a rolled key valid for its grace', async () => {
    const unknown = await post('alice', '/v1/admin/api-keys', {
      name: 'bad',
      scopes: ['refunds:everything'],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.errors[0]).toMatchObject({ field: 'scopes' });
    expect(unknown.body.error.message).toContain('refunds:everything');

    const ungranted = await post('dev', '/v1/admin/api-keys', {
      name: 'too-much',
      scopes: ['refunds:request'],
    });
    expect(ungranted.status).toBe(403);
    expect(ungranted.body.error.scopes).toEqual(['refunds:request']);

    const made = await post('dev', '/v1/admin/api-keys', {
      name: 'reporting',
      scopes: ['admin:read'],
    });
    expect(made.status).toBe(201);
    const secret = made.body.secret as string;
    expect(secret).toMatch(/^pck_/);
    expect(made.body.api_key).toMatchObject({
      name: 'reporting',
      scopes: ['admin:read'],
      state: 'active',
      created_by: `${person('dev')}@example.test`,
      prefix: secret.slice(0, 12),
    });
    const listed = await get('vic', '/v1/admin/api-keys');
    expect(listed.status).toBe(403);
    const keys = await get('dev', '/v1/admin/api-keys');
    expect(JSON.stringify(keys.body)).not.toContain(secret);

    const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
    expect((await request(service.apiUrl).get('/v1/admin/orders').set(bearer(secret))).status).toBe(
      200,
    );
    const outOfScope = await request(service.apiUrl)
      .post('/v1/admin/reconcile')
      .set(bearer(secret))
      .send({});
    expect(outOfScope.status).toBe(403);

    const rolled = await post('dev', `/v1/admin/api-keys/${made.body.api_key.id}/roll`, {
      grace_minutes: 30,
    });
    expect(rolled.status).toBe(201);
    const fresh = rolled.body.secret as string;
    expect(rolled.body.previous.rolled_to).toBe(rolled.body.api_key.id);
    expect((await request(service.apiUrl).get('/v1/admin/orders').set(bearer(secret))).status).toBe(
      200,
    );
    expect((await request(service.apiUrl).get('/v1/admin/orders').set(bearer(fresh))).status).toBe(
      200,
    );
    // The grace period ends: the old key is refused, the new one is not.
    await dataSource.query(
      `UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`,
      [made.body.api_key.id],
    );
    await waitFor(
      'the old key refused',
      async () =>
        (await request(service.apiUrl).get('/v1/admin/orders').set(bearer(secret))).status === 401,
    );
    expect((await request(service.apiUrl).get('/v1/admin/orders').set(bearer(fresh))).status).toBe(
      200,
    );

    const revoked = await request(service.apiUrl)
      .delete(`/v1/admin/api-keys/${rolled.body.api_key.id}`)
      .set('Cookie', (await as('dev')).cookie)
      .set('X-CSRF-Token', (await as('dev')).csrf);
    expect(revoked.status).toBe(200);
    expect(revoked.body.api_key.state).toBe('revoked');
    expect((await request(service.apiUrl).get('/v1/admin/orders').set(bearer(fresh))).status).toBe(
      401,
    );

    const acts = await trail(`target = $1`, [`api_key:${made.body.api_key.id}`]);
    expect(acts.map((a) => [a.action, a.actor_id])).toEqual([
      ['api_key.created', person('dev')],
      ['api_key.rolled', person('dev')],
    ]);
    expect(JSON.stringify(await trail(`action LIKE 'api_key.%'`, []))).not.toContain(secret);
  });

  it('a scoped key with checkout:write serves the shop routes; one without it is refused', async () => {
    const shopKey = await post('alice', '/v1/admin/api-keys', {
      name: 'shop-reader',
      scopes: ['orders:read'],
    });
    const paid = await fixtures.paidOrder('card', '100.00');
    const read = await request(service.apiUrl)
      .get(`/v1/orders/${paid.merchantReference}`)
      .set('Authorization', `Bearer ${shopKey.body.secret}`);
    expect(read.status).toBe(200);
    const write = await request(service.apiUrl)
      .post(`/v1/orders/${paid.merchantReference}/cancel`)
      .set('Authorization', `Bearer ${shopKey.body.secret}`)
      .send({});
    expect(write.status).toBe(403);
    expect(write.body.error.permission).toBe('checkout:write');
  });

  it.each([
    ['wrong-audience', /aud/i],
    ['expired', /exp|expired|timestamp/i],
    ['wrong-issuer', /iss/i],
    ['wrong-nonce', /nonce/i],
    ['forged', /signature/i],
  ] as const)(
    'refuses an ID token that is %s, naming why, and writes the failure',
    async (mode, why) => {
      await idp.misbehave(mode);
      try {
        const attempt = await signInOverHttp(service.apiUrl, person('alice'));
        expect(attempt.callback.status).toBe(400);
        const body = JSON.parse(attempt.callbackBody) as {
          error: { code: string; message: string };
        };
        expect(body.error.code).toBe('sign_in_failed');
        expect(body.error.message).toMatch(why);
        expect(attempt.session).toBeUndefined();
        await waitFor(
          'the failed sign-in in the trail',
          async () =>
            (await trail(`action = 'session.sign_in_failed' AND reason ~* $1`, [why.source]))
              .length > 0,
        );
      } finally {
        await idp.misbehave('normal');
      }
    },
  );

  it('refuses a callback whose state is not the one sent', async () => {
    const attempt = await signInOverHttp(service.apiUrl, person('alice'), (url) =>
      url.searchParams.set('state', 'a-state-never-sent'),
    );
    expect(attempt.callback.status).toBe(400);
    expect(attempt.callbackBody).toMatch(/state/);
    expect(attempt.session).toBeUndefined();
  });

  it('writes every admin change with its operator: a change made by a bootstrap key names the key', async () => {
    const made = await request(service.apiUrl)
      .post('/v1/admin/api-keys')
      .set(service.adminAuth)
      .send({ name: 'by-bootstrap', scopes: ['admin:read'] });
    expect(made.status).toBe(201);
    expect(await trail(`target = $1`, [`api_key:${made.body.api_key.id}`])).toEqual([
      expect.objectContaining({
        actor_kind: 'bootstrap_key',
        actor_id: 'test-admin',
        action: 'api_key.created',
      }),
    ]);
  });

  it("writes a webhook endpoint's changes with their operator, in the change's transaction, never its secret", async () => {
    const made = await post('dev', '/v1/admin/webhook-endpoints', {
      url: 'http://127.0.0.1:9/hooks',
      description: 'audited',
    });
    expect(made.status).toBe(201);
    const id = made.body.id as string;
    const rotated = await post('dev', `/v1/admin/webhook-endpoints/${id}/rotate-secret`, {});
    expect(rotated.status).toBe(201);
    const acts = await trail(`target = $1`, [`webhook_endpoint:${id}`]);
    expect(acts.map((a) => [a.action, a.actor_id])).toEqual([
      ['webhook_endpoint.created', person('dev')],
      ['webhook_endpoint.secret_rotated', person('dev')],
    ]);
    const written = JSON.stringify(
      await dataSource.query(`SELECT before, after FROM audit_events WHERE target = $1`, [
        `webhook_endpoint:${id}`,
      ]),
    );
    expect(written).not.toContain(made.body.secret);
    expect(written).not.toContain(rotated.body.secret);
  });

  it('four eyes follow a key to the person who made it; only people approve; a key lives no longer than the key that made it', async () => {
    const made = await post('alice', '/v1/admin/api-keys', {
      name: 'alice-automation',
      scopes: ['refunds:request', 'refunds:approve', 'api_keys:manage'],
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const bearer = { Authorization: `Bearer ${made.body.secret as string}` };
    const paid = await fixtures.paidOrder('card', '1500.00');
    const asked = await request(service.apiUrl)
      .post(`/v1/admin/orders/${paid.merchantReference}/refunds`)
      .set(bearer)
      .send({ amount: '1500.00', reason: 'by alice, through her key' });
    expect(asked.status).toBe(202);
    const id = asked.body.refund_approval.id as string;
    const byKey = await request(service.apiUrl)
      .post(`/v1/admin/refunds/${id}/approve`)
      .set(bearer)
      .send({});
    expect(byKey.status).toBe(403);
    expect(byKey.body.error.message).toMatch(/person/);
    const byAlice = await post('alice', `/v1/admin/refunds/${id}/approve`);
    expect(byAlice.status).toBe(403);
    expect(byAlice.body.error.code).toBe('self_approval_refused');

    const child = await request(service.apiUrl)
      .post('/v1/admin/api-keys')
      .set(bearer)
      .send({ name: 'child', scopes: ['refunds:request'] });
    expect(child.status).toBe(201);
    expect(child.body.api_key.expires_at).toBe(made.body.api_key.expires_at);

    const rolled = await post('alice', `/v1/admin/api-keys/${made.body.api_key.id}/roll`, {});
    expect(rolled.status).toBe(201);
    const again = await post('alice', `/v1/admin/api-keys/${made.body.api_key.id}/roll`, {});
    expect(again.status).toBe(409);
  });
});
