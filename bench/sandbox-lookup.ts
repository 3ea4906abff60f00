/**
 * Fills the sandbox's order store with 10,000 orders and times lookups by each key, in-process
 * (the store's own time, no HTTP). Run: node -r @swc-node/register bench/sandbox-lookup.ts
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { gatewayNow } from '../apps/sandbox/src/gateway-time';
import { OrderStore } from '../apps/sandbox/src/orders/order-store';
import type { SandboxOrder } from '../apps/sandbox/src/orders/sandbox-order';
import { statusRecord } from '../apps/sandbox/src/orders/status-record';

const ORDERS = 10_000;
const LOOKUPS = 100_000;
const merchantId = 'bench-merchant';
const store = new OrderStore();
const orders: SandboxOrder[] = [];

for (let i = 0; i < ORDERS; i += 1) {
  const push = i % 2 === 0;
  const order: SandboxOrder = {
    orderTrackingId: randomUUID(),
    merchantId,
    merchantReference: `order-${i}`,
    generatedReference: push ? String(100_000_000_000_000_000n + BigInt(i)) : null,
    channel: push ? 'push' : 'hosted',
    amount: `${i}.50`,
    currency: 'KES',
    description: 'bench',
    callbackUrl: 'http://shop.example/return',
    cancellationUrl: null,
    notificationId: randomUUID(),
    accountNumber: null,
    billingAddress: {},
    subscription: null,
    msisdn: null,
    network: null,
    createdAt: gatewayNow(),
    state: 'completed',
    payment: {
      instrument: 'card',
      account: 'x',
      confirmationCode: String(10n ** 21n + BigInt(i)),
      statusCode: '',
      at: gatewayNow(),
    },
    recurring: null,
  };
  store.add(order);
  orders.push(order);
}

function time(label: string, lookup: (order: SandboxOrder) => unknown): void {
  const samples: number[] = [];
  for (let n = 0; n < LOOKUPS; n += 1) {
    const order = orders[(n * 7919) % ORDERS];
    const start = performance.now();
    const found = lookup(order);
    samples.push(performance.now() - start);
    if (found === undefined) throw new Error(`${label}: order ${order.orderTrackingId} not found`);
  }
  samples.sort((a, b) => a - b);
  const micro = (ms: number): string => `${(ms * 1000).toFixed(2)} µs`;
  const mean = samples.reduce((sum, value) => sum + value, 0) / samples.length;
  process.stdout.write(
    `${label.padEnd(42)} mean ${micro(mean)}  p50 ${micro(samples[samples.length / 2])}  p99 ${micro(samples[Math.floor(samples.length * 0.99)])}  max ${micro(samples[samples.length - 1])}\n`,
  );
}

process.stdout.write(`orders in store: ${store.size}; ${LOOKUPS} lookups per key\n`);
time('by order_tracking_id', (o) => store.byTracking(o.orderTrackingId));
time('by merchant reference (id sent)', (o) => store.byReference(merchantId, o.merchantReference));
time('by generated push reference', (o) =>
  o.generatedReference ? store.byReference(merchantId, o.generatedReference) : o,
);
time('by confirmation_code', (o) => store.byConfirmation(o.payment?.confirmationCode ?? ''));
time('by tracking id + status record (2.8 body)', (o) => {
  const found = store.byTracking(o.orderTrackingId);
  return found && statusRecord(found, 'byTrackingId');
});
