import { Counter, Histogram, register } from 'prom-client';

const CALLS = 'gateway_client_calls_total';
const DURATION = 'gateway_client_call_duration_seconds';

export interface GatewayMetrics {
  calls: Counter<'operation' | 'outcome' | 'account'>;
  duration: Histogram<'operation' | 'outcome' | 'account'>;
  tokenLogins: Counter<'result' | 'account'>;
}

const LOGINS = 'gateway_token_logins_total';

let metrics: GatewayMetrics | undefined;

/**
 * Registered once on the default registry; a second client (or a test module loaded twice)
 * reuses the registered metrics instead of failing on a duplicate name.
 */
export function gatewayMetrics(): GatewayMetrics {
  if (metrics) return metrics;
  const existingCalls = register.getSingleMetric(CALLS) as GatewayMetrics['calls'] | undefined;
  const existingDuration = register.getSingleMetric(DURATION) as
    GatewayMetrics['duration'] | undefined;
  const existingLogins = register.getSingleMetric(LOGINS) as
    GatewayMetrics['tokenLogins'] | undefined;
  metrics = {
    tokenLogins:
      existingLogins ??
      new Counter({
        name: LOGINS,
        help: 'Logins at the gateway (RequestToken) by this process, by result (success, failure) and merchant account: about one per token lifetime per account across all processes when the token is shared.',
        labelNames: ['result', 'account'],
      }),
    calls:
      existingCalls ??
      new Counter({
        name: CALLS,
        help: 'Calls to the payment gateway by operation, outcome (success or error kind) and merchant account.',
        labelNames: ['operation', 'outcome', 'account'],
      }),
    duration:
      existingDuration ??
      new Histogram({
        name: DURATION,
        help: 'Duration of calls to the payment gateway, retries included.',
        labelNames: ['operation', 'outcome', 'account'],
        buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
      }),
  };
  for (const result of ['success', 'failure']) metrics.tokenLogins.inc({ result }, 0);
  return metrics;
}
