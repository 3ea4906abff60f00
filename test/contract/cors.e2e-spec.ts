import request from 'supertest';
import { RunningService, startService } from '../support/service';

/** CORS_ALLOWED_ORIGINS: the pages that may read the api's answers; no other origin may. */
describe('cross-origin requests (CORS_ALLOWED_ORIGINS)', () => {
  let listed: RunningService;
  let unlisted: RunningService;

  beforeAll(async () => {
    listed = await startService({
      env: { CORS_ALLOWED_ORIGINS: 'https://shop.example,http://localhost:5173' },
    });
    // process.env keeps what the first service was given: unset it for the second explicitly.
    unlisted = await startService({ env: { CORS_ALLOWED_ORIGINS: '' } });
  }, 60_000);
  afterAll(async () => {
    await listed?.close();
    await unlisted?.close();
  });

  it("answers a listed origin's request with that origin, and another origin's without", async () => {
    const fromShop = await request(listed.apiUrl)
      .get('/v1/orders/NO-SUCH-ORDER')
      .set(listed.shopAuth)
      .set('Origin', 'https://shop.example');
    expect(fromShop.status).toBe(404);
    expect(fromShop.headers['access-control-allow-origin']).toBe('https://shop.example');
    expect(fromShop.headers.vary).toMatch(/Origin/i);
    expect(fromShop.headers['access-control-allow-credentials']).toBeUndefined();

    const fromElsewhere = await request(listed.apiUrl)
      .get('/v1/orders/NO-SUCH-ORDER')
      .set(listed.shopAuth)
      .set('Origin', 'https://evil.example');
    expect(fromElsewhere.status).toBe(404);
    expect(fromElsewhere.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers no other origin on the admin routes and the console, listed or not', async () => {
    for (const path of ['/v1/admin/orders', '/admin']) {
      const answer = await request(listed.apiUrl)
        .get(path)
        .set(listed.adminAuth)
        .set('Origin', 'https://shop.example');
      expect(answer.status).toBe(200);
      expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it("answers a listed origin's preflight with the methods and headers it may send", async () => {
    const preflight = await request(listed.apiUrl)
      .options('/v1/checkouts')
      .set('Origin', 'http://localhost:5173')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'authorization,content-type,idempotency-key');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect(preflight.headers['access-control-allow-methods']).toContain('POST');
    expect(preflight.headers['access-control-allow-headers']).toMatch(/Idempotency-Key/i);

    const refused = await request(listed.apiUrl)
      .options('/v1/checkouts')
      .set('Origin', 'https://evil.example')
      .set('Access-Control-Request-Method', 'POST');
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers no origin when none is listed (the default), except on the live stream', async () => {
    const answer = await request(unlisted.apiUrl)
      .get('/v1/orders/NO-SUCH-ORDER')
      .set(unlisted.shopAuth)
      .set('Origin', 'https://shop.example');
    expect(answer.status).toBe(404);
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();

    const stream = await request(unlisted.apiUrl)
      .get('/v1/orders/NO-SUCH-ORDER/stream?status_token=pst_wrong')
      .set('Origin', 'https://shop.example');
    expect(stream.status).toBe(401);
    expect(stream.headers['access-control-allow-origin']).toBe('*');
  });
});
