import createClient from 'openapi-fetch';
import type { components, paths } from './api-types';
import { ShopApiError, ShopApiUnreachable } from './errors';
import { OrderOutcome, waitForOutcome } from './order-outcome';

type Schemas = components['schemas'];
export type HostedCheckoutRequest = Schemas['CreateCheckoutDto'];
export type MobileMoneyCheckoutRequest = Schemas['CreateMobileMoneyCheckoutDto'];
export type NewAttemptRequest = Schemas['StartAttemptDto'];
export type HostedCheckout = Schemas['HostedCheckoutResponse'];
export type MobileMoneyCheckout = Schemas['MobileMoneyCheckoutResponse'];
export type Order = Schemas['OrderResponse'];
export type PaymentLinkRequest = Schemas['CreatePaymentLinkDto'];
export type PaymentLinkChange = Schemas['UpdatePaymentLinkDto'];
export type PaymentLink = Schemas['PaymentLinkResponse'];
export type PaymentLinkDetail = Schemas['PaymentLinkDetailResponse'];
export type PaymentLinkPage = Schemas['PaymentLinkPageResponse'];

export interface ShopClientOptions {
  /** Where the api answers, e.g. https://payments.shop.example */
  baseUrl: string;
  /** The shop's API key (on the shop's server only; a browser uses status tokens). */
  apiKey?: string;
  /**
   * Per request, before it counts as unanswered and is retried (default 35 s: the api holds a
   * repeated key up to 30 s while the first request runs).
   */
  timeoutMs?: number;
  /** Retries of a request unanswered or answered 429, 500 or 503, with the same Idempotency-Key. */
  retries?: number;
  /** Delay before the first retry, doubled each time (default 500 ms); Retry-After wins. */
  retryDelayMs?: number;
  /** The longest wait before a retry, whatever Retry-After says (default 30 s). */
  maxRetryDelayMs?: number;
  fetch?: typeof fetch;
}

export interface WriteOptions {
  /** Sent as Idempotency-Key; one is made per call when absent, and kept across its retries. */
  idempotencyKey?: string;
}

type Answer<T> = { data?: T; error?: unknown; response: Response };

/**
 * The shop's client of the api: types from its OpenAPI document, calls through openapi-fetch.
 * Every write carries an Idempotency-Key, so a retry after a timeout or a 5xx is the same request,
 * never a second payment; a 4xx is never retried and throws a ShopApiError with the api's code.
 */
export class ShopClient {
  private readonly http: ReturnType<typeof createClient<paths>>;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly retryDelayMs: number;
  private readonly maxRetryDelayMs: number;

  constructor(private readonly options: ShopClientOptions) {
    this.http = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/$/, ''),
      fetch: options.fetch,
      headers: options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {},
    });
    this.timeoutMs = options.timeoutMs ?? 35_000;
    this.retries = options.retries ?? 3;
    this.retryDelayMs = options.retryDelayMs ?? 500;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 30_000;
  }

  /** Starts a payment on the gateway's hosted page; send the customer to `redirect_url`. */
  createCheckout(body: HostedCheckoutRequest, options: WriteOptions = {}): Promise<HostedCheckout> {
    const key = options.idempotencyKey ?? newIdempotencyKey();
    return this.call((signal) =>
      this.http.POST('/v1/checkouts', {
        body,
        params: { header: { 'Idempotency-Key': key } },
        signal,
      }),
    );
  }

  /** Sends an M-Pesa (or other mobile-money) PIN prompt to the customer's phone. */
  createMobileMoneyCheckout(
    body: MobileMoneyCheckoutRequest,
    options: WriteOptions = {},
  ): Promise<MobileMoneyCheckout> {
    const key = options.idempotencyKey ?? newIdempotencyKey();
    return this.call((signal) =>
      this.http.POST('/v1/checkouts/mobile-money', {
        body,
        params: { header: { 'Idempotency-Key': key } },
        signal,
      }),
    );
  }

  /** Try again after a declined or expired payment: a new hosted page or PIN prompt. */
  startAttempt(
    reference: string,
    body: NewAttemptRequest,
    options: WriteOptions = {},
  ): Promise<HostedCheckout | MobileMoneyCheckout> {
    const key = options.idempotencyKey ?? newIdempotencyKey();
    return this.call((signal) =>
      this.http.POST('/v1/orders/{reference}/attempts', {
        body,
        params: { path: { reference }, header: { 'Idempotency-Key': key } },
        signal,
      }),
    );
  }

  /** The order with its attempts, refund and timeline. */
  getOrder(reference: string): Promise<Order> {
    return this.call((signal) =>
      this.http.GET('/v1/orders/{reference}', { params: { path: { reference } }, signal }),
    );
  }

  /** Cancels an unpaid order at the gateway (cancelling twice is the same: no key needed). */
  cancelOrder(reference: string): Promise<Order> {
    return this.call((signal) =>
      this.http.POST('/v1/orders/{reference}/cancel', {
        params: { path: { reference } },
        signal,
      }),
    );
  }

  /** Makes a payment link: send its `url` to the customer (a chat, an email, an invoice). */
  async createPaymentLink(
    body: PaymentLinkRequest,
    options: WriteOptions = {},
  ): Promise<PaymentLink> {
    const key = options.idempotencyKey ?? newIdempotencyKey();
    const made = await this.call((signal) =>
      this.http.POST('/v1/payment-links', {
        body,
        params: { header: { 'Idempotency-Key': key } },
        signal,
      }),
    );
    return made.payment_link;
  }

  /** The link, with its latest payments. */
  getPaymentLink(id: string): Promise<PaymentLinkDetail> {
    return this.call((signal) =>
      this.http.GET('/v1/payment-links/{id}', { params: { path: { id } }, signal }),
    );
  }

  /** A page of links, newest first; pass `next_cursor` on for the next. */
  listPaymentLinks(
    query: { status?: PaymentLink['status']; currency?: string; cursor?: string } = {},
  ): Promise<PaymentLinkPage> {
    return this.call((signal) => this.http.GET('/v1/payment-links', { params: { query }, signal }));
  }

  /** Changes its description or expiry, or deactivates it for good (`active: false`). */
  async updatePaymentLink(id: string, change: PaymentLinkChange): Promise<PaymentLink> {
    const changed = await this.call((signal) =>
      this.http.PATCH('/v1/payment-links/{id}', { params: { path: { id } }, body: change, signal }),
    );
    return changed.payment_link;
  }

  /** Follows the order live until paid, failed or the time is up (see waitForOutcome). */
  waitForOutcome(
    reference: string,
    statusToken: string,
    options: { timeoutMs?: number; pollIntervalMs?: number; signal?: AbortSignal } = {},
  ): Promise<OrderOutcome> {
    return waitForOutcome({
      baseUrl: this.options.baseUrl,
      reference,
      statusToken,
      fetch: this.options.fetch,
      ...options,
    });
  }

  private async call<T>(send: (signal: AbortSignal) => Promise<Answer<T>>): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      const last = attempt >= this.retries;
      let answer: Answer<T>;
      try {
        answer = await send(AbortSignal.timeout(this.timeoutMs));
      } catch (error) {
        if (last) throw new ShopApiUnreachable('the api did not answer', error);
        await delay(this.backoff(attempt, null));
        continue;
      }
      const { response } = answer;
      if (response.ok) return answer.data as T;
      const refusal = ShopApiError.fromAnswer(response.status, answer.error);
      if (!refusal.retryable || last) throw refusal;
      await delay(this.backoff(attempt, response.headers.get('retry-after')));
    }
  }

  private backoff(attempt: number, retryAfter: string | null): number {
    const seconds = Number(retryAfter);
    const wanted =
      retryAfter !== null && Number.isFinite(seconds) && seconds >= 0
        ? seconds * 1000
        : this.retryDelayMs * 2 ** attempt;
    return Math.min(wanted, this.maxRetryDelayMs);
  }
}

/** A fresh Idempotency-Key (crypto.randomUUID exists in Node 20 and every current browser). */
export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
