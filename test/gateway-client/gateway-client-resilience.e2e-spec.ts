import { randomUUID } from 'node:crypto';
import { register } from 'prom-client';
import { IpnId, OrderTrackingId } from '@app/domain';
import {
  GatewayRateLimitedError,
  GatewayTimeoutError,
  GatewayUnavailableError,
  InMemoryTokenStore,
} from '@app/gateway-client';
import { RunningSandbox, SANDBOX_CREDENTIALS, startSandbox } from '../support/sandbox';
import { clientFor, orderFor } from './client-under-test';

const UNKNOWN_ORDER = OrderTrackingId('00000000-0000-4000-8000-000000000000');
const IPN_INTERVAL_MS = 400;

describe('GatewayClient against the sandbox: timeouts, retries, rate limit, observability', () => {
  let sandbox: RunningSandbox;
  let ipnId: IpnId;
  const counts = async () => (await sandbox.control.requests()).counts;

  beforeAll(async () => {
    sandbox = await startSandbox({ ipnRateLimitMs: IPN_INTERVAL_MS });
    ipnId = (
      await clientFor(sandbox).registerIpn(`https://shop.example/ipn/${randomUUID()}`, 'POST')
    ).ipnId;
  });
  afterAll(() => sandbox.close());
  beforeEach(async () => {
    await sandbox.control.reset();
    await sandbox.control.resetRequests();
  });

  it('times out a call that gets no answer, as an unavailability whose outcome is unknown', async () => {
    const client = clientFor(sandbox, { timeoutMs: 300, retry: { maxAttempts: 1 } });
    await client.listIpns();
    await sandbox.control.fault('GetTransactionStatus', 'timeout', { delayMs: 2000 });
    const started = Date.now();
    const failure = await client.getTransactionStatus(UNKNOWN_ORDER).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(GatewayTimeoutError);
    expect(failure).toBeInstanceOf(GatewayUnavailableError);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('retries lookups and order creation after a 5xx, with the same order id', async () => {
    const client = clientFor(sandbox);
    await sandbox.control.fault('GetTransactionStatus', 'http500', { times: 2 });
    expect(await client.getTransactionStatus(UNKNOWN_ORDER)).toEqual({ kind: 'not_found' });
    expect((await counts()).GetTransactionStatus).toBe(3);

    await sandbox.control.fault('SubmitOrderRequest', 'http500', { times: 1 });
    const order = orderFor(ipnId);
    const submitted = await client.submitOrder(order);
    expect(submitted.merchantReference).toBe(order.merchantReference);
    const { recent } = await sandbox.control.requests();
    const bodies = recent
      .filter((call) => call.operation === 'SubmitOrderRequest')
      .map((call) => JSON.parse(call.body ?? '{}').id);
    expect(bodies).toEqual([order.merchantReference, order.merchantReference]);
  });

  it('never repeats a push, even when the gateway failed', async () => {
    const client = clientFor(sandbox);
    await sandbox.control.fault('Stk', 'http500', { times: 1 });
    const failure = await client
      .pushMobileMoney({ ...orderFor(ipnId), msisdn: '254712345678', network: 'MPESA' })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(GatewayUnavailableError);
    expect((await counts()).Stk).toBe(1);
  });

  it('waits out the RegisterIPN rate limit (409) and retries, bounded', async () => {
    const client = clientFor(sandbox, {
      ipnRetry: { minIntervalMs: IPN_INTERVAL_MS, maxAttempts: 3 },
    });
    await client.registerIpn(`https://shop.example/ipn/${randomUUID()}`, 'GET');
    const started = Date.now();
    const second = await client.registerIpn(`https://shop.example/ipn/${randomUUID()}`, 'POST');
    expect(second.method).toBe('POST');
    expect(Date.now() - started).toBeGreaterThanOrEqual(IPN_INTERVAL_MS - 100);
    expect((await counts()).RegisterIPN).toBe(3);

    const impatient = clientFor(sandbox, {
      ipnRetry: { minIntervalMs: IPN_INTERVAL_MS, maxAttempts: 1 },
    });
    const limited = await impatient
      .registerIpn(`https://shop.example/ipn/${randomUUID()}`, 'GET')
      .catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(GatewayRateLimitedError);
    expect(limited).toMatchObject({ httpStatus: 409, code: 'too_many_requests' });
  });

  it('logs and counts every call without the secret or the token', async () => {
    const entries: unknown[] = [];
    const logger = {
      log: (entry: unknown) => entries.push(entry),
      warn: (entry: unknown) => entries.push(entry),
    };
    const store = new InMemoryTokenStore();
    const client = clientFor(sandbox, { logger, tokenStore: store, tokenStoreKey: 'observed' });
    const before = await callCount('getTransactionStatus', 'success');
    await client.getTransactionStatus(UNKNOWN_ORDER);
    await client
      .submitOrder(orderFor(IpnId('00000000-0000-4000-8000-00000000dead')))
      .catch(() => undefined);

    expect(entries).toEqual([
      expect.objectContaining({
        operation: 'requestToken',
        outcome: 'success',
        durationMs: expect.any(Number),
      }),
      expect.objectContaining({ operation: 'getTransactionStatus', outcome: 'success' }),
      expect.objectContaining({
        operation: 'submitOrder',
        outcome: 'rejected',
        code: 'InvalidIpnId',
      }),
    ]);
    const logged = JSON.stringify(entries);
    const token = (await store.get('observed'))?.token ?? 'missing';
    expect(logged).not.toContain(token);
    expect(logged).not.toContain(SANDBOX_CREDENTIALS.consumerSecret);
    expect(logged).not.toMatch(/authorization|bearer/i);
    expect(await callCount('getTransactionStatus', 'success')).toBe(before + 1);
    expect(
      await register.getSingleMetricAsString('gateway_client_call_duration_seconds'),
    ).toContain('operation="submitOrder"');
  });

  it('below the info level logs only the calls that failed, and still counts every one', async () => {
    const entries: unknown[] = [];
    const logger = {
      log: (entry: unknown) => entries.push(entry),
      warn: (entry: unknown) => entries.push(entry),
    };
    const client = clientFor(sandbox, {
      logger,
      logsSuccesses: () => false,
      tokenStore: new InMemoryTokenStore(),
      tokenStoreKey: 'quiet',
    });
    const before = await callCount('getTransactionStatus', 'success');
    const found = await client.getTransactionStatus(UNKNOWN_ORDER);
    await client
      .submitOrder(orderFor(IpnId('00000000-0000-4000-8000-00000000dead')))
      .catch(() => undefined);

    // The answer is the call's, whatever the log does.
    expect(found.kind).toBe('not_found');
    expect(entries).toEqual([
      expect.objectContaining({ operation: 'submitOrder', outcome: 'rejected' }),
    ]);
    expect(await callCount('getTransactionStatus', 'success')).toBe(before + 1);
  });
});

async function callCount(operation: string, outcome: string): Promise<number> {
  const metric = register.getSingleMetric('gateway_client_calls_total');
  const values = (await metric?.get())?.values ?? [];
  return (
    values.find((value) => value.labels.operation === operation && value.labels.outcome === outcome)
      ?.value ?? 0
  );
}
