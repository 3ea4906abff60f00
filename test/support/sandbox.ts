/**
 * Start the sandbox gateway inside a test (stable API for every team's e2e suites).
 *
 *   const sandbox = await startSandbox();            // 127.0.0.1, random port, control API on
 *   // point the gateway client at sandbox.baseUrl (…/pesapalv3/api) with SANDBOX_CREDENTIALS
 *   await sandbox.control.settle(orderTrackingId, 'completed', 'card');
 *   expect((await sandbox.control.requests()).counts.RefundRequest).toBe(1);
 *   await sandbox.close();
 *
 * Defaults tuned for tests: pushDelayMs 150, ipnRateLimitMs 0, quick IPN retries (100 ms base,
 * 1 s timeout, 4 attempts). Pass overrides for anything else (e.g. { ipnRateLimitMs: 8000 }).
 * The control API is documented in apps/sandbox/README.md.
 */
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { SANDBOX_DEFAULTS, SandboxConfig } from '@app/config';
import { NotificationDispatcher } from '../../apps/sandbox/src/notifications/notification-dispatcher.service';
import { createSandboxApp, sandboxConfigOf } from '../../apps/sandbox/src/sandbox-app';

export const SANDBOX_CREDENTIALS = {
  consumerKey: SANDBOX_DEFAULTS.consumerKey,
  consumerSecret: SANDBOX_DEFAULTS.consumerSecret,
} as const;

export type GatewayOperationName =
  | 'RequestToken'
  | 'RegisterIPN'
  | 'GetIpnList'
  | 'SubmitOrderRequest'
  | 'Stk'
  | 'GetTransactionStatus'
  | 'GetTransactionByMerchantReference'
  | 'QueryStatusByConfirmationCode'
  | 'CancelOrder'
  | 'RefundRequest';

export interface SandboxOrderView {
  order_tracking_id: string;
  /** The merchant's uid (uidOf its consumer key): whose order it is. */
  merchant: string;
  merchant_reference: string;
  generated_reference: string | null;
  channel: 'hosted' | 'push' | 'recurring';
  state: 'pending' | 'completed' | 'failed' | 'reversed' | 'cancelled';
  amount: number;
  currency: string;
  account_number: string | null;
  confirmation_code: string | null;
  payment_instrument: 'card' | 'mpesa' | 'airtel' | null;
  payment_status_code: string | null;
  refund: { amount: number; at: string } | null;
  /** RefundRequest calls naming this payment, refused ones included. */
  refund_requests: number;
}

export interface NotificationRecordView {
  id: number;
  orderTrackingId: string;
  merchantReference: string;
  type: 'IPNCHANGE' | 'RECURRING';
  url: string;
  method: 'GET' | 'POST';
  mode: string;
  copy: number;
  state: 'scheduled' | 'delivering' | 'acknowledged' | 'dropped' | 'gave_up';
  attempts: { at: string; httpStatus: number | null; error: string | null }[];
}

/** What a settlement's record says beyond its outcome; the sandbox chooses what is left out. */
export interface SettleDetails {
  paymentStatusCode?: string;
  confirmationCode?: string;
  paymentAccount?: string;
}

export interface SandboxControl {
  /** Settle an order as a customer would (completed | failed | reversed). */
  settle(
    orderTrackingId: string,
    outcome: 'completed' | 'failed' | 'reversed',
    method?: 'card' | 'mobile_money',
    details?: SettleDetails,
  ): Promise<SandboxOrderView>;
  order(orderTrackingId: string): Promise<SandboxOrderView>;
  /** One merchant's latest orders (up to 100), newest first. */
  ordersOf(consumerKey: string): Promise<SandboxOrderView[]>;
  /** How notifications are delivered from now on. */
  notifications(
    mode: 'deliver' | 'drop' | 'delay' | 'duplicate',
    options?: { delayMs?: number; copies?: number },
  ): Promise<void>;
  /** Delivery log (optionally of one order). */
  notificationLog(orderTrackingId?: string): Promise<NotificationRecordView[]>;
  /** Fire a recurring charge of a subscription order (completed card payment with account_number). */
  chargeSubscription(orderTrackingId: string, amount?: string): Promise<SandboxOrderView>;
  /** Calls received per gateway operation, and the most recent ones (bodies except RequestToken). */
  requests(): Promise<{
    counts: Record<GatewayOperationName, number>;
    recent: {
      operation: GatewayOperationName;
      method: string;
      path: string;
      at: string;
      body: string | null;
    }[];
  }>;
  resetRequests(): Promise<void>;
  /** Make an operation (or '*') fail: 'timeout' drops the connection after delayMs (default 60 s),
   * 'http500' answers 500, 'slow' answers normally after delayMs, 'reset' cuts the connection;
   * 'none' clears. `times` limits it; `pathContains` confines it to calls whose URL contains that
   * text; `percent` faults that share of the calls. */
  fault(
    operation: GatewayOperationName | '*',
    mode: 'timeout' | 'http500' | 'slow' | 'reset' | 'none',
    options?: { delayMs?: number; times?: number; pathContains?: string; percent?: number },
  ): Promise<void>;
  /** Counters, faults, delivery mode and the IPN rate-limit clock back to defaults (orders stay). */
  reset(): Promise<void>;
  /** Resolves once every notification under way has been delivered or given up. */
  notificationsSettled(): Promise<void>;
}

export interface RunningSandbox {
  /** e.g. http://127.0.0.1:40123/pesapalv3/api */
  baseUrl: string;
  /** e.g. http://127.0.0.1:40123 */
  origin: string;
  control: SandboxControl;
  app: NestFastifyApplication;
  close(): Promise<void>;
}

export async function startSandbox(
  overrides: Partial<SandboxConfig> = {},
): Promise<RunningSandbox> {
  const app = await createSandboxApp({
    port: 0,
    controlEnabled: true,
    pushDelayMs: 150,
    ipnRateLimitMs: 0,
    ipnDeliveryTimeoutMs: 1000,
    ipnMaxAttempts: 4,
    ipnRetryBaseMs: 100,
    logLevel: process.env.LOG_LEVEL ?? 'silent',
    ...overrides,
  });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  if (!overrides.publicUrl) sandboxConfigOf(app).publicUrl = origin;

  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${origin}/__sandbox${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok)
      throw new Error(`sandbox control ${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  };
  const dispatcher = app.get(NotificationDispatcher);

  const control: SandboxControl = {
    settle: (id, outcome, method = 'card', details = {}) =>
      call('POST', `/orders/${id}/outcome`, {
        outcome,
        method,
        payment_status_code: details.paymentStatusCode,
        confirmation_code: details.confirmationCode,
        payment_account: details.paymentAccount,
      }),
    order: (id) => call('GET', `/orders/${id}`),
    ordersOf: async (consumerKey) =>
      (
        await call<{ orders: SandboxOrderView[] }>(
          'GET',
          `/orders?consumer_key=${encodeURIComponent(consumerKey)}`,
        )
      ).orders,
    notifications: async (mode, options = {}) => {
      await call('POST', '/notifications', { mode, ...options });
    },
    notificationLog: async (id) =>
      (
        await call<{ records: NotificationRecordView[] }>(
          'GET',
          `/notifications${id ? `?orderTrackingId=${encodeURIComponent(id)}` : ''}`,
        )
      ).records,
    chargeSubscription: (id, amount) =>
      call('POST', `/subscriptions/${id}/charge`, amount === undefined ? {} : { amount }),
    requests: () => call('GET', '/requests'),
    resetRequests: async () => {
      await call('DELETE', '/requests');
    },
    fault: async (operation, mode, options = {}) => {
      await call('POST', '/faults', { operation, mode, ...options });
    },
    reset: async () => {
      await call('POST', '/reset', {});
    },
    notificationsSettled: () => dispatcher.settle(),
  };

  return {
    baseUrl: `${origin}/pesapalv3/api`,
    origin,
    control,
    app,
    close: () => app.close(),
  };
}
