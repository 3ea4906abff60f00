import request from 'supertest';
import { WEBHOOK_ENDPOINTS_LIMIT } from '@app/checkout/merchant-events/delivery-limits';
import { ownTestDatabase } from '../support/database';
import { RunningService, startService } from '../support/service';

/**
 * At most WEBHOOK_ENDPOINTS_LIMIT endpoints added by admins: the one past it is refused and
 * nothing is added. On a database of its own, since it fills the table.
 */
describe('the webhook endpoint limit (api + Postgres)', () => {
  let database: Awaited<ReturnType<typeof ownTestDatabase>>;
  let service: RunningService;

  beforeAll(async () => {
    database = await ownTestDatabase('endpoint_limit');
    service = await startService();
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await database?.drop();
  });

  const add = (url: string) =>
    request(service.apiUrl)
      .post('/v1/admin/webhook-endpoints')
      .set(service.adminAuth)
      .send({ url, event_types: ['webhook_endpoint.disabled'] });
  const added = async () =>
    (
      (await database.dataSource.query(
        `SELECT count(*)::int AS n FROM webhook_endpoints WHERE source = 'admin'`,
      )) as { n: number }[]
    )[0].n;

  it(`adds up to ${WEBHOOK_ENDPOINTS_LIMIT}, refuses the next with a code, and adds again after a delete`, async () => {
    // All but the last, as admins would have added them (disabled: nothing is sent to them).
    await database.dataSource.query(
      `INSERT INTO webhook_endpoints (url, description, secret, source, disabled_at)
       SELECT 'https://shop.example/hooks/' || n, 'seeded', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
              'admin', now()
         FROM generate_series(2, $1) AS n`,
      [WEBHOOK_ENDPOINTS_LIMIT],
    );
    // Two admins add the last one at once: counted under one lock, only one of them gets it.
    const both = await Promise.all([
      add('https://shop.example/hooks/1'),
      add('https://shop.example/hooks/1-again'),
    ]);
    expect(both.map((answer) => answer.status).sort()).toEqual([201, 409]);
    const last = both.find((answer) => answer.status === 201)!;
    expect(await added()).toBe(WEBHOOK_ENDPOINTS_LIMIT);

    const refused = await add('https://shop.example/hooks/one-too-many');
    expect([refused.status, refused.body.error.code]).toEqual([
      409,
      'webhook_endpoints_limit_reached',
    ]);
    expect(refused.body.error.message).toMatch(/delete one first/);
    expect(await added()).toBe(WEBHOOK_ENDPOINTS_LIMIT);

    const listed = await request(service.apiUrl)
      .get('/v1/admin/webhook-endpoints')
      .set(service.adminAuth);
    const bySource = (listed.body.data as { source: string }[]).filter((e) => e.source === 'admin');
    expect(bySource).toHaveLength(WEBHOOK_ENDPOINTS_LIMIT);

    await request(service.apiUrl)
      .delete(`/v1/admin/webhook-endpoints/${last.body.id}`)
      .set(service.adminAuth)
      .expect(204);
    expect((await add('https://shop.example/hooks/again')).status).toBe(201);
  });
});
