import { request as httpRequest } from 'node:http';
import { ConfirmationCode, Money } from '@app/domain';
import { GatewayClient, GatewayTimeoutError } from '@app/gateway-client';
import { SANDBOX_CREDENTIALS, startSandbox, RunningSandbox } from '../support/sandbox';

/**
 * A caller that gives up on a held call leaves the sandbox with a request still in its fault delay
 * and a connection still open: close() must end promptly all the same.
 */
describe('sandbox close after a client-side timeout', () => {
  const CLOSE_WITHIN_MS = 2500;

  const closeTime = async (sandbox: RunningSandbox): Promise<number> => {
    const started = Date.now();
    await sandbox.close();
    return Date.now() - started;
  };

  it.each([
    ['slow', { delayMs: 1000 }],
    ['timeout', {}],
  ] as const)(
    'after our GatewayClient times out on a %s fault',
    async (mode, options) => {
      const sandbox = await startSandbox();
      const client = new GatewayClient({
        baseUrl: sandbox.baseUrl,
        consumerKey: SANDBOX_CREDENTIALS.consumerKey,
        consumerSecret: SANDBOX_CREDENTIALS.consumerSecret,
        timeoutMs: 300,
        productionMode: false,
        mobileMoneyNetworks: ['MPESA'],
      });
      await sandbox.control.fault('RefundRequest', mode, options);
      await expect(
        client.requestRefund({
          confirmationCode: 'NOSUCHCODE' as ConfirmationCode,
          amount: Money.of('10.00', 'KES'),
          username: 'alice',
          remarks: 'test',
        }),
      ).rejects.toBeInstanceOf(GatewayTimeoutError);
      expect(await closeTime(sandbox)).toBeLessThan(CLOSE_WITHIN_MS);
    },
    20_000,
  );

  it.each([
    ['slow', { delayMs: 60_000 }],
    ['timeout', {}],
  ] as const)(
    'after a caller stops waiting on a %s fault but leaves its connection open',
    async (mode, options) => {
      const sandbox = await startSandbox();
      await sandbox.control.fault('RefundRequest', mode, options);
      const abandoned = httpRequest(`${sandbox.baseUrl}/Transactions/RefundRequest`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
      });
      abandoned.on('error', () => undefined);
      abandoned.end('{}');
      // Held in the fault delay once the sandbox has counted it.
      for (let i = 0; i < 100; i += 1) {
        if ((await sandbox.control.requests()).counts.RefundRequest) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect((await sandbox.control.requests()).counts.RefundRequest).toBe(1);
      expect(await closeTime(sandbox)).toBeLessThan(CLOSE_WITHIN_MS);
      abandoned.destroy();
    },
    20_000,
  );
});
