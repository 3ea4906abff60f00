import type { LoggerService } from '@nestjs/common';
import { ConfirmationCode, MerchantReference, OrderTrackingId } from '@app/domain';
import {
  GatewayAuthError,
  GatewayError,
  GatewayOperation,
  GatewayRateLimitedError,
  GatewayRequestInvalidError,
} from './gateway-errors';
import { FetchLike, GatewayHttp, GatewayHttpRequest } from './gateway-http';
import { gatewayMetrics } from './gateway-metrics';
import {
  GatewayAcknowledgement,
  IpnMethod,
  IpnRegistration,
  OrderRequest,
  PushedOrder,
  PushRequest,
  RefundRequest,
  SubmittedOrder,
  TransactionLookup,
} from './gateway-types';
import { buildOrderBody, buildPushBody, checkUrl } from './order-request-body';
import { parseAcknowledgement } from './parse-acknowledgement';
import { parseIpnList, parseIpnRegistration } from './parse-ipn-registration';
import { parsePushResponse, parseSubmitOrderResponse } from './parse-order';
import { parseTokenResponse } from './parse-token';
import { LookupOperation, parseTransactionLookup } from './parse-transaction-status';
import {
  backoffDelayMs,
  BackoffOptions,
  DEFAULT_BACKOFF,
  isRetryableUnavailability,
  sleep,
} from './retry-policy';
import { TokenManager } from './token-manager';
import { InMemoryTokenStore, TokenStore, tokenStoreKey } from './token-store';

export type GatewayLogger = Pick<LoggerService, 'log' | 'warn'>;

export interface GatewayClientOptions {
  /** Includes the version prefix, e.g. https://pay.pesapal.com/v3/api. */
  baseUrl: string;
  consumerKey: string;
  consumerSecret: string;
  /** Per HTTP call. */
  timeoutMs: number;
  /** HTTPS-only URLs for callbacks and notifications. */
  productionMode: boolean;
  /** Accepted push networks, sent as payment_method in the configured spelling. */
  mobileMoneyNetworks: string[];
  /** Defaults to this process's memory; GatewayClientModule shares tokens through Redis. */
  tokenStore?: TokenStore;
  /** Defaults to a hash of baseUrl and consumer key under "gateway". */
  tokenStoreKey?: string;
  /** Refresh a token this long before its exp (default 60 s). */
  tokenRefreshMarginMs?: number;
  logger?: GatewayLogger;
  /**
   * Whether a call that succeeded is logged now (the logger's level lets `log` lines through;
   * default always). Failures are always given to the logger. A line no one would read is not
   * built.
   */
  logsSuccesses?: () => boolean;
  fetchImpl?: FetchLike;
  /** RegisterIPN's rate limit: about one success per 8 s, HTTP 409 otherwise. */
  ipnRetry?: { minIntervalMs: number; maxAttempts: number };
  /** Backoff for calls safe to repeat (lookups, IPN listing, order creation, token). */
  retry?: Partial<BackoffOptions>;
  /** The merchant account this client calls as: its metrics carry it (default `default`). */
  account?: string;
}

/** What may be repeated after the gateway was unreachable, and why. */
const REPEATABLE_WHEN_UNAVAILABLE: Record<GatewayOperation, boolean> = {
  requestToken: true,
  listIpns: true,
  // Idempotent by URL: the original ipn_id comes back.
  registerIpn: true,
  // Re-submitting the same id returns the original order.
  submitOrder: true,
  // A second push is a second PIN prompt: the customer could pay twice.
  pushMobileMoney: false,
  getTransactionStatus: true,
  getTransactionByMerchantReference: true,
  queryStatusByConfirmationCode: true,
  // The first attempt may have landed; a repeat would read as refused. Reconcile by lookup instead.
  cancelOrder: false,
  requestRefund: false,
};

/** Query parameter names of the lookups (only orderTrackingId is documented; the others follow it). */
const LOOKUPS: Record<LookupOperation, { path: string; parameter: string }> = {
  getTransactionStatus: {
    path: '/Transactions/GetTransactionStatus',
    parameter: 'orderTrackingId',
  },
  getTransactionByMerchantReference: {
    path: '/Transactions/GetTransactionByMerchantReference',
    parameter: 'merchantReference',
  },
  queryStatusByConfirmationCode: {
    path: '/Transactions/QueryStatusByConfirmationCode',
    parameter: 'confirmationCode',
  },
};

type Parse<T> = (httpStatus: number, body: unknown) => T;

const silentLogger: GatewayLogger = { log: () => undefined, warn: () => undefined };

/**
 * Every call to the payment gateway. Callers see clean types, UTC dates, exact Money and typed
 * GatewayError subclasses; every gateway quirk is absorbed in this library.
 */
export class GatewayClient {
  private readonly http: GatewayHttp;
  private readonly tokens: TokenManager;
  private readonly logger: GatewayLogger;
  private readonly logsSuccesses: () => boolean;
  private readonly backoff: BackoffOptions;
  private readonly ipnRetry: { minIntervalMs: number; maxAttempts: number };
  private lastIpnRegistrationAt: number | null = null;
  /** The merchant account it calls as (metrics and log lines carry it). */
  readonly account: string;

  constructor(private readonly options: GatewayClientOptions) {
    this.http = new GatewayHttp(options.baseUrl, options.timeoutMs, options.fetchImpl);
    this.logger = options.logger ?? silentLogger;
    this.logsSuccesses = options.logsSuccesses ?? (() => true);
    this.account = options.account ?? 'default';
    this.backoff = { ...DEFAULT_BACKOFF, ...options.retry };
    this.ipnRetry = options.ipnRetry ?? { minIntervalMs: 8000, maxAttempts: 3 };
    this.tokens = new TokenManager({
      store: options.tokenStore ?? new InMemoryTokenStore(),
      key: options.tokenStoreKey ?? tokenStoreKey('gateway', options.baseUrl, options.consumerKey),
      issue: () =>
        this.requestToken().then(
          (token) => {
            gatewayMetrics().tokenLogins.inc({ result: 'success', account: this.account });
            return token;
          },
          (error: unknown) => {
            gatewayMetrics().tokenLogins.inc({ result: 'failure', account: this.account });
            throw error;
          },
        ),
      refreshMarginMs: options.tokenRefreshMarginMs ?? 60_000,
      lockWaitMs: options.timeoutMs + 1000,
    });
  }

  async registerIpn(url: string, method: IpnMethod): Promise<IpnRegistration> {
    checkUrl('registerIpn', 'url', url, this.options.productionMode);
    if (method !== 'GET' && method !== 'POST') {
      throw new GatewayRequestInvalidError('registerIpn', 'method', 'must be GET or POST');
    }
    const body = JSON.stringify({ url, ipn_notification_type: method });
    for (let attempt = 1; ; attempt++) {
      try {
        const registration = await this.call(
          { operation: 'registerIpn', method: 'POST', path: '/URLSetup/RegisterIPN', body },
          parseIpnRegistration,
        );
        this.lastIpnRegistrationAt = Date.now();
        return registration;
      } catch (error) {
        if (!(error instanceof GatewayRateLimitedError) || attempt >= this.ipnRetry.maxAttempts) {
          throw error;
        }
        // No Retry-After header: the window runs from the last success, which we may not know.
        const since = this.lastIpnRegistrationAt ?? Date.now();
        await sleep(Math.max(50, since + this.ipnRetry.minIntervalMs - Date.now()));
      }
    }
  }

  async listIpns(): Promise<IpnRegistration[]> {
    return this.call(
      { operation: 'listIpns', method: 'GET', path: '/URLSetup/GetIpnList' },
      parseIpnList,
    );
  }

  async submitOrder(request: OrderRequest): Promise<SubmittedOrder> {
    const body = buildOrderBody(request, this.options);
    return this.call(
      { operation: 'submitOrder', method: 'POST', path: '/Transactions/SubmitOrderRequest', body },
      parseSubmitOrderResponse,
    );
  }

  async pushMobileMoney(request: PushRequest): Promise<PushedOrder> {
    const body = buildPushBody(request, this.options);
    return this.call(
      { operation: 'pushMobileMoney', method: 'POST', path: '/transactions/stk', body },
      parsePushResponse,
    );
  }

  async getTransactionStatus(orderTrackingId: OrderTrackingId): Promise<TransactionLookup> {
    return this.lookup('getTransactionStatus', orderTrackingId);
  }

  async getTransactionByMerchantReference(
    reference: MerchantReference,
  ): Promise<TransactionLookup> {
    return this.lookup('getTransactionByMerchantReference', reference);
  }

  async queryStatusByConfirmationCode(code: ConfirmationCode): Promise<TransactionLookup> {
    return this.lookup('queryStatusByConfirmationCode', code);
  }

  async cancelOrder(orderTrackingId: OrderTrackingId): Promise<GatewayAcknowledgement> {
    this.requireText('cancelOrder', 'orderTrackingId', orderTrackingId);
    const body = JSON.stringify({ order_tracking_id: orderTrackingId });
    return this.call(
      { operation: 'cancelOrder', method: 'POST', path: '/Transactions/CancelOrder', body },
      (status, answer) => parseAcknowledgement('cancelOrder', status, answer),
    );
  }

  async requestRefund(request: RefundRequest): Promise<GatewayAcknowledgement> {
    this.requireText('requestRefund', 'confirmationCode', request.confirmationCode);
    this.requireText('requestRefund', 'username', request.username);
    this.requireText('requestRefund', 'remarks', request.remarks);
    if (!request.amount.isPositive()) {
      throw new GatewayRequestInvalidError('requestRefund', 'amount', 'must be positive');
    }
    // The refund body takes the amount as a string, unlike the order body.
    const body = JSON.stringify({
      confirmation_code: request.confirmationCode,
      amount: request.amount.toDecimalString(),
      username: request.username,
      remarks: request.remarks,
    });
    return this.call(
      { operation: 'requestRefund', method: 'POST', path: '/Transactions/RefundRequest', body },
      (status, answer) => parseAcknowledgement('requestRefund', status, answer),
    );
  }

  private async lookup(operation: LookupOperation, value: string): Promise<TransactionLookup> {
    const { path, parameter } = LOOKUPS[operation];
    this.requireText(operation, parameter, value);
    return this.call(
      { operation, method: 'GET', path, query: { [parameter]: value } },
      (status, body) => parseTransactionLookup(operation, status, body),
    );
  }

  private requireText(operation: GatewayOperation, field: string, value: string): void {
    if (typeof value !== 'string' || value.trim() === '') {
      throw new GatewayRequestInvalidError(operation, field, 'must not be empty');
    }
  }

  private async requestToken() {
    const body = JSON.stringify({
      consumer_key: this.options.consumerKey,
      consumer_secret: this.options.consumerSecret,
    });
    return this.observe('requestToken', () =>
      this.withBackoff('requestToken', async () => {
        const answer = await this.http.send({
          operation: 'requestToken',
          method: 'POST',
          path: '/Auth/RequestToken',
          body,
        });
        return parseTokenResponse(answer.status, answer.body);
      }),
    );
  }

  /** An authenticated call: token, retries where safe, one forced refresh if the token is refused. */
  private call<T>(request: Omit<GatewayHttpRequest, 'bearer'>, parse: Parse<T>): Promise<T> {
    return this.observe(request.operation, () =>
      this.withBackoff(request.operation, async () => {
        let bearer = await this.tokens.getToken();
        for (let refreshed = false; ; refreshed = true) {
          try {
            // Bearer first: new keys after a spread cost V8 (Node 20) about half a microsecond each.
            const answer = await this.http.send({ bearer, ...request });
            return parse(answer.status, answer.body);
          } catch (error) {
            // A refused token never reached the operation, so one retry is safe even for push.
            if (!(error instanceof GatewayAuthError) || refreshed) throw error;
            bearer = await this.tokens.getToken(bearer);
          }
        }
      }),
    );
  }

  private async withBackoff<T>(operation: GatewayOperation, attempt: () => Promise<T>): Promise<T> {
    const attempts = REPEATABLE_WHEN_UNAVAILABLE[operation] ? this.backoff.maxAttempts : 1;
    for (let n = 1; ; n++) {
      try {
        return await attempt();
      } catch (error) {
        if (n >= attempts || !isRetryableUnavailability(error)) throw error;
        await sleep(backoffDelayMs(n, this.backoff));
      }
    }
  }

  /** Logs and counts one logical call. Never logs bodies, the secret, the token or headers. */
  private async observe<T>(operation: GatewayOperation, run: () => Promise<T>): Promise<T> {
    const metrics = gatewayMetrics();
    const started = performance.now();
    let outcome = 'success';
    let failure: GatewayError | undefined;
    try {
      return await run();
    } catch (error) {
      failure = error instanceof GatewayError ? error : undefined;
      outcome = failure ? failure.kind : 'client_error';
      throw error;
    } finally {
      const seconds = (performance.now() - started) / 1000;
      const account = this.account;
      metrics.calls.inc({ operation, outcome, account });
      metrics.duration.observe({ operation, outcome, account }, seconds);
      if (outcome !== 'success' || this.logsSuccesses()) {
        const entry = {
          msg: 'gateway call',
          account,
          operation,
          outcome,
          durationMs: Math.round(seconds * 1000),
          ...(failure
            ? { httpStatus: failure.httpStatus, code: failure.code, messages: failure.messages }
            : {}),
        };
        if (failure) this.logger.warn(entry);
        else this.logger.log(entry);
      }
    }
  }
}
