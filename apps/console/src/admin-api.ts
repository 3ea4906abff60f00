import createClient from 'openapi-fetch';
import type { components, paths } from '../../../libs/shop-client/src/api-types';

/** The admin API's answers, as the OpenAPI document (openapi.json) declares them. */
export type Schemas = components['schemas'];
export type OrderPage = Schemas['AdminOrderPage'];
export type OrderDetail = Schemas['AdminOrderDetail'];
export type OrderStatus = Schemas['AdminOrderResponse']['status'];
export type SyncResult = Schemas['AdminOrderSyncResult'];
export type RefundResult = Schemas['AdminRefundResult'];
export type DoublePaymentRefundResult = Schemas['AdminDoublePaymentRefundResult'];
export type RefundPage = Schemas['AdminRefundPage'];
export type RefundStatus = Schemas['AdminRefundResponse']['status'];
export type WebhookEndpoint = Schemas['WebhookEndpointResponse'];
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecretResponse'];
export type NewWebhookEndpoint = Schemas['CreateWebhookEndpointBody'];
export type WebhookEndpointChange = Schemas['UpdateWebhookEndpointBody'];
export type EventPage = Schemas['MerchantEventPageResponse'];
export type EventDeliveries = Schemas['MerchantEventDeliveriesResponse'];
export type StuckPage = Schemas['AdminStuckOrderPage'];
export type NotificationPage = Schemas['AdminNotificationPage'];
export type NotificationStatus = Schemas['AdminNotification']['status'];
export type DeadLetterPage = Schemas['AdminDeadLetterPage'];
export type DeadLetter = Schemas['AdminDeadLetter'];
export type ReconciliationReport = Schemas['AdminReconciliationReport'];
export type DailyReport = Schemas['DailyReportResponse'];
export type Overview = Schemas['OverviewResponse'];
export type OverviewBucket = Schemas['OverviewBucketResponse'];
export type OverviewWindow = 'hour' | 'day' | 'month';
export type AuditPage = Schemas['AuditPageResponse'];
export type AuditEvent = Schemas['AuditEventResponse'];
export type AuditVerification = Schemas['AuditVerificationResponse'];
export interface AuditFilter {
  actor?: string;
  action?: string;
  target?: string;
  request_id?: string;
}
export interface FinanceRange {
  from: string;
  to: string;
  tz?: string;
  currency?: string;
}

/** GET /admin/auth/methods: whether people sign in with the company's identity provider. */
export interface AuthMethods {
  identity_provider: boolean;
  login: string;
}
export type Operator = Schemas['OperatorResponse'];
export type ConsoleSession = Schemas['ConsoleSessionResponse'];
/** GET /v1/admin/session: who is calling, what they may do, and a person's console session. */
export type WhoAmI = Omit<Schemas['WhoAmIResponse'], 'session'> & {
  session: ConsoleSession | null;
};
/** A refund; the requester is the signed-in operator (no longer a field of the request). */
export type RefundRequest = Schemas['CreateRefundDto'];
export type RefundApproval = Schemas['RefundApprovalResponse'];
export type RefundApprovalStatus = RefundApproval['status'];
export type RefundApprovalPage = Schemas['RefundApprovalPage'];
/** A refund asked for: made at once (201), or a request waiting for an approver (202). */
export type Refunded<R> = R | { refund_approval: RefundApproval };
/** The refund an approval made: an order's, or a double payment's second payment's. */
export interface ApprovedRefund {
  refund: { status: string | null; gateway_message?: string | null };
}
export type UnmatchedPayment = Schemas['UnmatchedPaymentResponse'];
export type UnmatchedPaymentStatus = UnmatchedPayment['status'];
export type UnmatchedPaymentPage = Schemas['UnmatchedPaymentPageResponse'];
export type UnmatchedPaymentMatch = Schemas['MatchResultResponse'];
/** A payment without an order refunded through the order it was adopted as: made, or waiting. */
export type UnmatchedPaymentRefund =
  Schemas['UnmatchedPaymentRefundResult'] | Schemas['UnmatchedPaymentRefundApprovalResult'];
export type PaymentLink = Schemas['PaymentLinkResponse'];
export type PaymentLinkStatus = PaymentLink['status'];
export type PaymentLinkPage = Schemas['PaymentLinkPageResponse'];
export type PaymentLinkDetail = Schemas['PaymentLinkDetailResponse'];
export type NewPaymentLink = Schemas['CreatePaymentLinkDto'];
export type ApiKey = Schemas['ApiKeyResponse'];
export type ApiKeyPage = Schemas['ApiKeyPageResponse'];
export type NewApiKey = Schemas['CreateApiKeyBody'];
/** A key made or rolled: its secret is in this answer only (rolled: the old key beside it). */
export type ApiKeyWithSecret = Schemas['ApiKeyCreatedResponse'] & { previous?: ApiKey };

const KEY = 'pesapal-console.admin-key';

/** A refusal of the API: its status, stable code and message, as the page shows them. */
export class ApiRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A person's console session: its cookie is HttpOnly (the browser sends it with same-origin
 * calls); its CSRF token lives in this page's memory only, never in storage.
 */
let csrfToken: string | null = null;

/**
 * How this tab calls the API. An admin key (bootstrap or scoped) lives in this tab's
 * sessionStorage only and travels in the Authorization header; closing the tab forgets it. A
 * person signed in with the identity provider sends no key: their session cookie travels by
 * itself, and every call that changes something carries the session's CSRF token.
 */
export const session = {
  key: (): string | null => sessionStorage.getItem(KEY),
  signIn: (key: string) => {
    csrfToken = null;
    sessionStorage.setItem(KEY, key.trim());
  },
  /** Signed in by the session cookie: no key, the CSRF token kept in memory. */
  followCookie: (token: string | null) => {
    sessionStorage.removeItem(KEY);
    csrfToken = token;
  },
  signOut: () => {
    sessionStorage.removeItem(KEY);
    csrfToken = null;
    // The queue view's cookie goes too: signing out closes every admin page of this browser.
    void fetch('/admin/session', { method: 'DELETE' }).catch(() => undefined);
  },
};

/** Methods that change nothing: the server asks no CSRF token of them. */
const READING = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The headers that say who calls: the key, or (a session) the CSRF token on a change. */
function credentials(method: string): Record<string, string> {
  const key = session.key();
  if (key) return { Authorization: `Bearer ${key}` };
  if (csrfToken && !READING.has(method.toUpperCase())) return { 'X-CSRF-Token': csrfToken };
  return {};
}

const http = createClient<paths>({ baseUrl: '' });
http.use({
  onRequest({ request }) {
    for (const [name, value] of Object.entries(credentials(request.method))) {
      request.headers.set(name, value);
    }
    return request;
  },
});

/** The refusal an answer's status and error body (`{"error": {code, message}}`) describe. */
function refusalOf(response: Response, body: unknown): ApiRefusal {
  const error = (body as { error?: { code?: string; message?: string } } | null | undefined)?.error;
  return new ApiRefusal(
    response.status,
    error?.code ?? `http_${response.status}`,
    error?.message ?? response.statusText,
  );
}

async function answer<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await call;
  } catch {
    throw unreachable();
  }
  if (result.data !== undefined && result.response.ok) return result.data;
  throw refusalOf(result.response, result.error);
}

const unreachable = () => new ApiRefusal(0, 'unreachable', 'the service did not answer; try again');

/**
 * A call of a route the generated types do not describe yet (see above): JSON in and out, with
 * the same credentials and refusals as the typed calls.
 */
async function call<T>(
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  options: { query?: Record<string, string | number | undefined>; body?: unknown } = {},
): Promise<T> {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(options.query ?? {})) {
    if (value !== undefined && value !== '') query.set(name, String(value));
  }
  const search = query.toString();
  const url = search ? `${path}?${search}` : path;
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      credentials: 'same-origin',
      headers: {
        ...credentials(method),
        ...(options.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
  } catch {
    throw unreachable();
  }
  const body: unknown = await response.json().catch(() => null);
  if (response.ok && body !== null) return body as T;
  throw refusalOf(response, body);
}

const segment = (value: string | number) => encodeURIComponent(String(value));

export interface OrderFilter {
  q?: string;
  status?: OrderStatus;
  /** Created at or after / before: ISO 8601 instants. */
  from?: string;
  to?: string;
  cursor?: string;
}

/** Calls of the admin API the console makes, each typed by the document. */
export const adminApi = {
  /** How people sign in here (asked before any key or session). */
  authMethods: (): Promise<AuthMethods> => call('GET', '/admin/auth/methods'),
  /** Who the key or the session cookie is: 401 when neither. */
  whoAmI: (): Promise<WhoAmI> => call('GET', '/v1/admin/session'),
  /** Ends this console session, or every one of the person's. */
  endSession: (everywhere: boolean): Promise<{ sessions_ended: number }> =>
    call(
      'POST',
      everywhere ? '/v1/admin/session/sign-out-everywhere' : '/v1/admin/session/sign-out',
    ),
  approvals: (status: RefundApprovalStatus, cursor?: string): Promise<RefundApprovalPage> =>
    call('GET', '/v1/admin/refund-approvals', { query: { status, limit: 50, cursor } }),
  approve: (id: string): Promise<ApprovedRefund> =>
    call('POST', `/v1/admin/refunds/${segment(id)}/approve`),
  decline: (id: string, reason: string): Promise<{ refund_approval: RefundApproval }> =>
    call('POST', `/v1/admin/refunds/${segment(id)}/reject`, { body: { reason } }),
  apiKeys: (cursor?: string): Promise<ApiKeyPage> =>
    call('GET', '/v1/admin/api-keys', { query: { limit: 50, cursor } }),
  createApiKey: (body: NewApiKey): Promise<ApiKeyWithSecret> =>
    call('POST', '/v1/admin/api-keys', { body }),
  rollApiKey: (id: string, graceMinutes: number): Promise<ApiKeyWithSecret> =>
    call('POST', `/v1/admin/api-keys/${segment(id)}/roll`, {
      body: { grace_minutes: graceMinutes },
    }),
  revokeApiKey: (id: string): Promise<{ api_key: ApiKey }> =>
    call('DELETE', `/v1/admin/api-keys/${segment(id)}`),
  audit: (filter: AuditFilter, cursor?: string): Promise<AuditPage> =>
    answer(
      http.GET('/v1/admin/audit', {
        params: { query: { limit: 50, ...filter, ...(cursor ? { cursor } : {}) } },
      }),
    ),
  verifyAudit: (): Promise<AuditVerification> => answer(http.GET('/v1/admin/audit/verify')),
  overview: (window: OverviewWindow): Promise<Overview> =>
    answer(http.GET('/v1/admin/overview', { params: { query: { window } } })),
  orders: (filter: OrderFilter): Promise<OrderPage> =>
    answer(
      http.GET('/v1/admin/orders', {
        params: {
          query: {
            limit: 50,
            ...(filter.q ? { q: filter.q } : {}),
            ...(filter.from ? { from: filter.from } : {}),
            ...(filter.to ? { to: filter.to } : {}),
            ...(filter.status ? { status: filter.status } : {}),
            ...(filter.cursor ? { cursor: filter.cursor } : {}),
          },
        },
      }),
    ),
  order: (reference: string): Promise<OrderDetail> =>
    answer(
      http.GET('/v1/admin/orders/{reference}', {
        params: { path: { reference } },
      }),
    ),
  refunds: (status: RefundStatus | undefined, cursor?: string): Promise<RefundPage> =>
    answer(
      http.GET('/v1/admin/refunds', {
        params: {
          query: { limit: 50, ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) },
        },
      }),
    ),
  endpoints: (): Promise<{ data: WebhookEndpoint[] }> =>
    answer(http.GET('/v1/admin/webhook-endpoints')),
  addEndpoint: (body: NewWebhookEndpoint): Promise<WebhookEndpointWithSecret> =>
    answer(http.POST('/v1/admin/webhook-endpoints', { body })),
  changeEndpoint: (id: string, change: WebhookEndpointChange): Promise<WebhookEndpoint> =>
    answer(
      http.PATCH('/v1/admin/webhook-endpoints/{id}', {
        params: { path: { id } },
        body: change,
      }),
    ),
  setEndpointEnabled: (id: string, enabled: boolean): Promise<WebhookEndpoint> =>
    answer(
      http.PATCH('/v1/admin/webhook-endpoints/{id}', {
        params: { path: { id } },
        body: { enabled },
      }),
    ),
  deleteEndpoint: async (id: string): Promise<void> => {
    const { response, error } = await http.DELETE('/v1/admin/webhook-endpoints/{id}', {
      params: { path: { id } },
    });
    if (!response.ok) throw refusalOf(response, error);
  },
  replayEndpoint: (id: string, since: string): Promise<{ queued: number }> =>
    answer(
      http.POST('/v1/admin/webhook-endpoints/{id}/replay', {
        params: { path: { id } },
        body: { since, include_delivered: false },
      }),
    ),
  rotateSecret: (id: string): Promise<WebhookEndpointWithSecret> =>
    answer(
      http.POST('/v1/admin/webhook-endpoints/{id}/rotate-secret', {
        params: { path: { id } },
        // The old secret keeps signing for a day, while the shop puts the new one in place.
        body: { overlap_seconds: 86_400 },
      }),
    ),
  sendTest: (id: string): Promise<{ event_id: string }> =>
    answer(
      http.POST('/v1/admin/webhook-endpoints/{id}/test', {
        params: { path: { id } },
      }),
    ),
  /** Merchant events, newest first (as `items`, like the other lists). */
  events: async (
    cursor?: string,
    order?: string,
  ): Promise<{ items: EventPage['data']; next_cursor: string | null }> => {
    const page = await answer(
      http.GET('/v1/admin/events', {
        params: {
          query: { limit: 20, ...(cursor ? { cursor } : {}), ...(order ? { order } : {}) },
        },
      }),
    );
    return { items: page.data, next_cursor: page.next_cursor };
  },
  deliveries: (id: string): Promise<EventDeliveries> =>
    answer(http.GET('/v1/admin/events/{id}/deliveries', { params: { path: { id } } })),
  redeliver: (id: string): Promise<{ endpoints: string[] }> =>
    answer(
      http.POST('/v1/admin/events/{id}/redeliver', {
        params: { path: { id } },
        body: {},
      }),
    ),
  stuck: (minutes: number, cursor?: string): Promise<StuckPage> =>
    answer(
      http.GET('/v1/admin/orders/stuck', {
        params: { query: { pending_minutes: minutes, limit: 50, ...(cursor ? { cursor } : {}) } },
      }),
    ),
  notifications: (
    status: NotificationStatus | undefined,
    cursor?: string,
  ): Promise<NotificationPage> =>
    answer(
      http.GET('/v1/admin/notifications', {
        params: {
          query: { limit: 50, ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) },
        },
      }),
    ),
  replayNotification: (id: string) =>
    answer(
      http.POST('/v1/admin/notifications/{id}/replay', {
        params: { path: { id } },
      }),
    ),
  deadLetters: (): Promise<DeadLetterPage> =>
    answer(http.GET('/v1/admin/dead-letters', { params: { query: { limit: 50 } } })),
  replayDeadLetter: (queue: DeadLetter['queue'], jobId: string) =>
    answer(
      http.POST('/v1/admin/dead-letters/{queue}/{jobId}/replay', {
        params: { path: { queue, jobId } },
      }),
    ),
  unmatchedPayments: (
    status: UnmatchedPaymentStatus | undefined,
    cursor?: string,
  ): Promise<UnmatchedPaymentPage> =>
    answer(
      http.GET('/v1/admin/unmatched-payments', {
        params: {
          query: { limit: 50, ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) },
        },
      }),
    ),
  matchUnmatchedPayment: (id: string, reference: string): Promise<UnmatchedPaymentMatch> =>
    answer(
      http.POST('/v1/admin/unmatched-payments/{id}/match', {
        params: { path: { id } },
        body: { reference },
      }),
    ),
  /** In full; the requester is the signed-in operator; above the threshold it waits. */
  refundUnmatchedPayment: (id: string, reason: string): Promise<UnmatchedPaymentRefund> =>
    answer(
      http.POST('/v1/admin/unmatched-payments/{id}/refund', {
        params: { path: { id } },
        body: { reason },
      }),
    ),
  reconcile: (sinceHours: number): Promise<ReconciliationReport> =>
    answer(http.POST('/v1/admin/reconcile', { body: { since_hours: sinceHours } })),
  reports: (): Promise<{ items: ReconciliationReport[] }> =>
    answer(http.GET('/v1/admin/reconciliation-reports')),
  daily: (range: FinanceRange): Promise<DailyReport> =>
    answer(http.GET('/v1/admin/reports/daily', { params: { query: range } })),
  /** A CSV file of the admin API, fetched with the key and handed to the browser as a download. */
  download: async (path: string, query: Record<string, string>): Promise<string> => {
    let response: Response;
    try {
      response = await fetch(`${path}?${new URLSearchParams(query).toString()}`, {
        headers: credentials('GET'),
      });
    } catch {
      throw unreachable();
    }
    if (!response.ok) throw refusalOf(response, await response.json().catch(() => null));
    const name =
      /filename="([^"]+)"/.exec(response.headers.get('Content-Disposition') ?? '')?.[1] ??
      'export.csv';
    const url = URL.createObjectURL(await response.blob());
    const link = document.createElement('a');
    link.href = url;
    link.download = name;
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    return name;
  },
  /** The requester is the signed-in operator; above the threshold it waits for an approver. */
  refundSecondPayment: (
    reference: string,
    attempt: number,
  ): Promise<Refunded<DoublePaymentRefundResult>> =>
    call('POST', `/v1/admin/orders/${segment(reference)}/attempts/${segment(attempt)}/refund`, {
      body: { reason: `double payment: attempt ${attempt} paid an order already paid` },
    }),
  /**
   * The queue view is a page of its own. With a key, its cookie is asked for with the key first;
   * a person's console session opens it by itself.
   */
  openQueues: async (): Promise<void> => {
    if (session.key()) {
      const response = await fetch('/admin/session', {
        method: 'POST',
        headers: credentials('POST'),
      });
      if (!response.ok) {
        throw new ApiRefusal(response.status, `http_${response.status}`, 'refused');
      }
    }
    location.href = '/admin/queues';
  },
  sync: (reference: string): Promise<SyncResult> =>
    answer(
      http.POST('/v1/admin/orders/{reference}/sync', {
        params: { path: { reference } },
      }),
    ),
  cancel: (reference: string, note: string): Promise<OrderDetail> =>
    answer(
      http.POST('/v1/admin/orders/{reference}/cancel', {
        params: { path: { reference } },
        body: note ? { note } : {},
      }),
    ),
  /** The requester is the signed-in operator; above the threshold it waits for an approver. */
  refund: (reference: string, request: RefundRequest): Promise<Refunded<RefundResult>> =>
    call('POST', `/v1/admin/orders/${segment(reference)}/refunds`, { body: request }),
  paymentLinks: (
    status: PaymentLinkStatus | undefined,
    cursor?: string,
  ): Promise<PaymentLinkPage> =>
    answer(
      http.GET('/v1/payment-links', {
        params: {
          query: { limit: 50, ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) },
        },
      }),
    ),
  paymentLink: (id: string): Promise<PaymentLinkDetail> =>
    answer(http.GET('/v1/payment-links/{id}', { params: { path: { id } } })),
  createPaymentLink: (body: NewPaymentLink): Promise<{ payment_link: PaymentLink }> =>
    answer(http.POST('/v1/payment-links', { body })),
  /** For good: its page takes no more payments. */
  deactivatePaymentLink: (id: string): Promise<{ payment_link: PaymentLink }> =>
    answer(
      http.PATCH('/v1/payment-links/{id}', { params: { path: { id } }, body: { active: false } }),
    ),
};
