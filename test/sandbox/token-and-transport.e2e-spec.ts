import { RunningSandbox, SANDBOX_CREDENTIALS, startSandbox } from '../support/sandbox';
import { GatewayCaller, raw } from './gateway-http';

describe('sandbox gateway: token issue, bearer checks and transport errors', () => {
  let sandbox: RunningSandbox;
  let gw: GatewayCaller;

  beforeAll(async () => {
    sandbox = await startSandbox();
    gw = new GatewayCaller(sandbox);
  });
  afterAll(() => sandbox.close());

  const tokenBody = JSON.stringify({
    consumer_key: SANDBOX_CREDENTIALS.consumerKey,
    consumer_secret: SANDBOX_CREDENTIALS.consumerSecret,
  });
  const decode = (token: string): Record<string, unknown> =>
    JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));

  it('issues an HS256 JWT whose exp is iat + 3600, expiryDate with seven digits and Z, status "200"', async () => {
    const res = await gw.post('/Auth/RequestToken', tokenBody);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ error: null, status: '200', message: expect.any(String) });
    const header = JSON.parse(Buffer.from(res.json.token.split('.')[0], 'base64url').toString());
    expect(header.alg).toBe('HS256');
    const claims = decode(res.json.token);
    // The recorded real token's claims, in its order (test/fixtures/real-sandbox/request-token.json).
    expect(Object.keys(claims)).toEqual([
      'http://schemas.microsoft.com/ws/2008/06/identity/claims/userdata',
      'uid',
      'nbf',
      'exp',
      'iat',
      'iss',
      'aud',
    ]);
    expect(claims['http://schemas.microsoft.com/ws/2008/06/identity/claims/userdata']).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(claims.exp).toBe((claims.iat as number) + 3600);
    expect(res.json.expiryDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{7}Z$/);
    expect(Math.abs(Date.parse(res.json.expiryDate) / 1000 - (claims.exp as number))).toBeLessThan(
      1,
    );
  });

  it('answers a wrong secret with HTTP 200 and invalid_consumer_key_or_secret_provided', async () => {
    const res = await gw.post('/Auth/RequestToken', {
      consumer_key: SANDBOX_CREDENTIALS.consumerKey,
      consumer_secret: 'wrong',
    });
    expect(res.status).toBe(200);
    expect(res.json.token ?? undefined).toBeUndefined();
    expect(res.json.status).toBe('500');
    expect(res.json.error).toEqual({
      error_type: 'api_error',
      code: 'invalid_consumer_key_or_secret_provided',
      message: 'Invalid Access Credentials provided',
    });
  });

  it('lists both missing fields pipe-delimited', async () => {
    const res = await gw.post('/Auth/RequestToken', {});
    expect(res.json.error).toEqual({
      error_type: 'invalid_request_error',
      code: 'invalid_api_request_parameters',
      message: 'Consumer Key is required|Consumer Secret is required',
    });
  });

  it('answers malformed JSON with leading empty pipe segments', async () => {
    const res = await gw.post('/Auth/RequestToken', '{"consumer_key": "x",');
    expect(res.status).toBe(200);
    expect(res.json.error.code).toBe('invalid_api_request_parameters');
    expect(res.json.error.message).toMatch(
      /^\|+Consumer Key is required\|Consumer Secret is required$/,
    );
  });

  it('accepts a form-encoded body by content type and then fails to bind it', async () => {
    const res = await raw('POST', `${sandbox.baseUrl}/Auth/RequestToken`, {
      body: `consumer_key=${SANDBOX_CREDENTIALS.consumerKey}&consumer_secret=${SANDBOX_CREDENTIALS.consumerSecret}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(200);
    expect(res.json.error.message).toBe('Consumer Key is required|Consumer Secret is required');
  });

  it('answers a missing Content-Type with HTTP 415 and a message-only body', async () => {
    const res = await raw('POST', `${sandbox.baseUrl}/Auth/RequestToken`, { body: tokenBody });
    expect(res.status).toBe(415);
    expect(Object.keys(res.json)).toEqual(['message']);
  });

  it('matches paths in any case', async () => {
    const res = await raw('POST', `${sandbox.baseUrl}/auth/REQUESTTOKEN`, {
      body: tokenBody,
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(res.json.status).toBe('200');
  });

  it('answers an unknown path 404 and a wrong method 405, message only', async () => {
    const unknown = await raw('GET', `${sandbox.baseUrl}/Transactions/Nothing`);
    expect(unknown.status).toBe(404);
    expect(Object.keys(unknown.json)).toEqual(['message']);
    const wrong = await raw('GET', `${sandbox.baseUrl}/Auth/RequestToken`);
    expect(wrong.status).toBe(405);
    expect(Object.keys(wrong.json)).toEqual(['message']);
    const wrongPost = await raw('POST', `${sandbox.baseUrl}/Transactions/GetTransactionStatus`, {
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(wrongPost.status).toBe(405);
  });

  it('without an Authorization header answers 401 with the error object JSON-encoded in message', async () => {
    const res = await raw('GET', `${sandbox.baseUrl}/URLSetup/GetIpnList`);
    expect(res.status).toBe(401);
    expect(Object.keys(res.json)).toEqual(['message']);
    const inner = JSON.parse(res.json.message);
    expect(inner).toMatchObject({
      error_type: 'authentication_error',
      code: 'invalid_api_credentials_provided',
    });
  });

  it('answers a forged token with HTTP 500, standard envelope and status null', async () => {
    await gw.authenticate();
    const [head, payload] = gw.token.split('.');
    const res = await raw('GET', `${sandbox.baseUrl}/URLSetup/GetIpnList`, {
      headers: { authorization: `Bearer ${head}.${payload}.AAAA` },
    });
    expect(res.status).toBe(500);
    expect(res.json).toEqual({
      error: {
        error_type: expect.any(String),
        code: 'invalid_api_credentials_provided',
        message: expect.any(String),
      },
      status: null,
    });
  });

  it('rejects an expired token the same way', async () => {
    const shortLived = await startSandbox({ tokenLifetimeSeconds: 1 });
    try {
      const caller = await new GatewayCaller(shortLived).authenticate();
      const claims = decode(caller.token);
      expect((claims.exp as number) - (claims.iat as number)).toBe(1);
      expect((await caller.get('/URLSetup/GetIpnList')).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 2100));
      const res = await caller.get('/URLSetup/GetIpnList');
      expect(res.status).toBe(500);
      expect(res.json.status).toBeNull();
    } finally {
      await shortLived.close();
    }
  });

  it('counts the calls it receives per operation and can fake a failing gateway', async () => {
    await sandbox.control.resetRequests();
    await gw.get('/URLSetup/GetIpnList');
    await sandbox.control.fault('GetIpnList', 'http500', { times: 1 });
    expect((await gw.get('/URLSetup/GetIpnList')).status).toBe(500);
    expect((await gw.get('/URLSetup/GetIpnList')).status).toBe(200);
    await sandbox.control.fault('GetIpnList', 'timeout', { delayMs: 50, times: 1 });
    await expect(gw.get('/URLSetup/GetIpnList')).rejects.toThrow();
    const { counts } = await sandbox.control.requests();
    expect(counts.GetIpnList).toBe(4);
    expect(counts.RequestToken).toBe(0);
  });

  it('can cut connections (reset) and fault only a share of the calls', async () => {
    await sandbox.control.fault('GetIpnList', 'reset', { times: 1 });
    await expect(gw.get('/URLSetup/GetIpnList')).rejects.toThrow();
    expect((await gw.get('/URLSetup/GetIpnList')).status).toBe(200);

    await sandbox.control.fault('GetIpnList', 'http500', { percent: 50 });
    const statuses: number[] = [];
    for (let i = 0; i < 80; i += 1) statuses.push((await gw.get('/URLSetup/GetIpnList')).status);
    await sandbox.control.fault('GetIpnList', 'none');
    const failed = statuses.filter((status) => status === 500).length;
    // 80 calls at 50 %: outside 15..65 has a probability below one in a million.
    expect(failed).toBeGreaterThan(15);
    expect(failed).toBeLessThan(65);
    await expect(sandbox.control.fault('GetIpnList', 'http500', { percent: 0 })).rejects.toThrow(
      /percent 1-100/,
    );
  });

  it('can confine a fault to calls whose URL names one order', async () => {
    await sandbox.control.fault('GetTransactionStatus', 'http500', {
      times: 1,
      pathContains: 'tracking-faulted',
    });
    const other = await gw.get('/Transactions/GetTransactionStatus?orderTrackingId=tracking-other');
    expect(other.status).toBe(200);
    const named = await gw.get(
      '/Transactions/GetTransactionStatus?orderTrackingId=tracking-faulted',
    );
    expect(named.status).toBe(500);
    const again = await gw.get(
      '/Transactions/GetTransactionStatus?orderTrackingId=tracking-faulted',
    );
    expect(again.status).toBe(200);
  });
});
