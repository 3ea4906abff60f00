import { randomUUID } from 'node:crypto';
import { IpnId, MerchantReference, Money } from '@app/domain';
import { GatewayClient, GatewayClientOptions, OrderRequest } from '@app/gateway-client';
import { RunningSandbox, SANDBOX_CREDENTIALS } from '../support/sandbox';

/** A client pointed at a running sandbox, quick timeouts and retries for tests. */
export function clientFor(
  sandbox: RunningSandbox,
  overrides: Partial<GatewayClientOptions> = {},
): GatewayClient {
  return new GatewayClient({
    baseUrl: sandbox.baseUrl,
    ...SANDBOX_CREDENTIALS,
    timeoutMs: 2000,
    productionMode: false,
    mobileMoneyNetworks: ['MPESA', 'AIRTELKE'],
    ipnRetry: { minIntervalMs: 300, maxAttempts: 3 },
    retry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 100 },
    ...overrides,
  });
}

export function orderFor(ipnId: IpnId, overrides: Partial<OrderRequest> = {}): OrderRequest {
  return {
    merchantReference: MerchantReference(`ORD-${randomUUID()}`),
    amount: Money.of('1500.50', 'KES'),
    description: 'Two bags of coffee',
    callbackUrl: 'https://shop.example/return',
    cancellationUrl: 'https://shop.example/cancel',
    notificationId: ipnId,
    billingAddress: { email: 'amina@example.com', phone: '+254712345678', firstName: 'Amina' },
    ...overrides,
  };
}

/** Counts calls to one path through the client's fetch, on top of the sandbox's own counters. */
export function countingFetch(pathPart: string): { fetchImpl: typeof fetch; count: () => number } {
  let count = 0;
  return {
    fetchImpl: (input, init) => {
      if (String(input).includes(pathPart)) count++;
      return fetch(input, init);
    },
    count: () => count,
  };
}
