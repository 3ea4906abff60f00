import createClient from 'openapi-fetch';
import type { components, paths } from '../../../libs/shop-client/src/api-types';

/** The admin API's answers, as the OpenAPI document (openapi.json) declares them. */
export type Schemas = components['schemas'];
export type OrderPage = Schemas['AdminOrderPage'];
export type OrderDetail = Schemas['AdminOrderDetail'];
export type OrderStatus = Schemas['AdminOrderResponse']['status'];
export type SyncResult = Schemas['AdminOrderSyncResult'];
export type RefundResult = Schemas['AdminRefundResult'];
export type RefundRequest = Schemas['CreateRefundDto'];
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
 * The admin key lives in this tab's sessionStorage only and travels in the Authorization header
 * of same-origin calls; closing the tab forgets it.
 */
export const session = {
  key: (): string | null => sessionStorage.getItem(KEY),
  signIn: (key: string) => sessionStorage.setItem(KEY, key.trim()),
  signOut: () => {
    sessionStorage.removeItem(KEY);
    // The queue view's cookie goes too: signing out closes every admin page of this browser.
    void fetch('/admin/session', { method: 'DELETE' }).catch(() => undefined);
  },
};

const http = createClient<paths>({ baseUrl: '' });

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
    throw new ApiRefusal(0, 'unreachable', 'the service did not answer; try again');
  }
  if (result.data !== undefined && result.response.ok) return result.data;
  throw refusalOf(result.response, result.error);
}

const auth = () => ({ Authorization: `Bearer ${session.key() ?? ''}` });

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
  audit: (filter: AuditFilter, cursor?: string): Promise<AuditPage> =>
    answer(
      http.GET('/v1/admin/audit', {
        params: { query: { limit: 50, ...filter, ...(cursor ? { cursor } : {}) } },
        headers: auth(),
      }),
    ),
  verifyAudit: (): Promise<AuditVerification> =>
    answer(http.GET('/v1/admin/audit/verify', { headers: auth() })),
  overview: (window: OverviewWindow): Promise<Overview> =>
    answer(http.GET('/v1/admin/overview', { params: { query: { window } }, headers: auth() })),
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
        headers: auth(),
      }),
    ),
  order: (reference: string): Promise<OrderDetail> =>
    answer(
      http.GET('/v1/admin/orders/{reference}', {
        params: { path: { reference } },
        headers: auth(),
      }),
    ),
  refunds: (status: RefundStatus | undefined, cursor?: string): Promise<RefundPage> =>
    answer(
      http.GET('/v1/admin/refunds', {
        params: {
          query: { limit: 50, ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) },
        },
        headers: auth(),
      }),
    ),
  endpoints: (): Promise<{ data: WebhookEndpoint[] }> =>
    answer(http.GET('/v1/admin/webhook-endpoints', { headers: auth() })),
  addEndpoint: (body: NewWebhookEndpoint): Promise<WebhookEndpointWithSecret> =>
    answer(http.POST('/v1/admin/webhook-endpoints', { body, headers: auth() })),
  changeEndpoint: (id: string, change: WebhookEndpointChange): Promise<WebhookEndpoint> =>
    answer(
      http.PATCH('/v1/admin/webhook-endpoints/{id}', {
        params: { path: { id } },
        body: change,
        headers: auth(),
      }),
    ),
  setEndpointEnabled: (id: string, enabled: boolean): Promise<WebhookEndpoint> =>
    answer(
      http.PATCH('/v1/admin/webhook-endpoints/{id}', {
        params: { path: { id } },
        body: { enabled },
        headers: auth(),
      }),
    ),
  deleteEndpoint: async (id: string): Promise<void> => {
    const { response, error } = await http.DELETE('/v1/admin/webhook-endpoints/{id}', {
      params: { path: { id } },
      headers: auth(),
    });
    if (!response.ok) throw refusalOf(response, error);
  },
  replayEndpoint: (id: string, since: string): Promise<{ queued: number }> =>
    answer(
      http.POST('/v1/admin/webhook-endpoints/{id}/replay', {
        params: { path: { id } },
        body: { since, include_delivered: false },
        headers: auth(),
      }),
    ),
  rotateSecret: (id: string): Promise<WebhookEndpointWithSecret> =>
    answer(
      http.POST('/v1/admin/webhook-endpoints/{id}/rotate-secret', {
        params: { path: { id } },
        // The old secret keeps signing for a day, while the shop puts the new one in place.
        body: { overlap_seconds: 86_400 },
        headers: auth(),
      }),
    ),
  sendTest: (id: string): Promise<{ event_id: string }> =>
    answer(
      http.POST('/v1/admin/webhook-endpoints/{id}/test', {
        params: { path: { id } },
        headers: auth(),
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
        headers: auth(),
      }),
    );
    return { items: page.data, next_cursor: page.next_cursor };
  },
  deliveries: (id: string): Promise<EventDeliveries> =>
    answer(
      http.GET('/v1/admin/events/{id}/deliveries', { params: { path: { id } }, headers: auth() }),
    ),
  redeliver: (id: string): Promise<{ endpoints: string[] }> =>
    answer(
      http.POST('/v1/admin/events/{id}/redeliver', {
        params: { path: { id } },
        body: {},
        headers: auth(),
      }),
    ),
  stuck: (minutes: number, cursor?: string): Promise<StuckPage> =>
    answer(
      http.GET('/v1/admin/orders/stuck', {
        params: { query: { pending_minutes: minutes, limit: 50, ...(cursor ? { cursor } : {}) } },
        headers: auth(),
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
        headers: auth(),
      }),
    ),
  replayNotification: (id: string) =>
    answer(
      http.POST('/v1/admin/notifications/{id}/replay', {
        params: { path: { id } },
        headers: auth(),
      }),
    ),
  deadLetters: (): Promise<DeadLetterPage> =>
    answer(
      http.GET('/v1/admin/dead-letters', { params: { query: { limit: 50 } }, headers: auth() }),
    ),
  replayDeadLetter: (queue: DeadLetter['queue'], jobId: string) =>
    answer(
      http.POST('/v1/admin/dead-letters/{queue}/{jobId}/replay', {
        params: { path: { queue, jobId } },
        headers: auth(),
      }),
    ),
  reconcile: (sinceHours: number): Promise<ReconciliationReport> =>
    answer(
      http.POST('/v1/admin/reconcile', { body: { since_hours: sinceHours }, headers: auth() }),
    ),
  reports: (): Promise<{ items: ReconciliationReport[] }> =>
    answer(http.GET('/v1/admin/reconciliation-reports', { headers: auth() })),
  daily: (range: FinanceRange): Promise<DailyReport> =>
    answer(http.GET('/v1/admin/reports/daily', { params: { query: range }, headers: auth() })),
  /** A CSV file of the admin API, fetched with the key and handed to the browser as a download. */
  download: async (path: string, query: Record<string, string>): Promise<string> => {
    let response: Response;
    try {
      response = await fetch(`${path}?${new URLSearchParams(query).toString()}`, {
        headers: auth(),
      });
    } catch {
      throw new ApiRefusal(0, 'unreachable', 'the service did not answer; try again');
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
  refundSecondPayment: (reference: string, attempt: number, requestedBy: string) =>
    answer(
      http.POST('/v1/admin/orders/{reference}/attempts/{attempt}/refund', {
        params: { path: { reference, attempt } },
        body: {
          reason: `double payment: attempt ${attempt} paid an order already paid`,
          requested_by: requestedBy,
        },
        headers: auth(),
      }),
    ),
  /** The queue view is a page of its own: its session cookie is asked for with the key first. */
  openQueues: async (): Promise<void> => {
    const response = await fetch('/admin/session', { method: 'POST', headers: auth() });
    if (!response.ok) throw new ApiRefusal(response.status, `http_${response.status}`, 'refused');
    location.href = '/admin/queues';
  },
  sync: (reference: string): Promise<SyncResult> =>
    answer(
      http.POST('/v1/admin/orders/{reference}/sync', {
        params: { path: { reference } },
        headers: auth(),
      }),
    ),
  cancel: (reference: string, note: string): Promise<OrderDetail> =>
    answer(
      http.POST('/v1/admin/orders/{reference}/cancel', {
        params: { path: { reference } },
        body: note ? { note } : {},
        headers: auth(),
      }),
    ),
  refund: (reference: string, request: RefundRequest): Promise<RefundResult> =>
    answer(
      http.POST('/v1/admin/orders/{reference}/refunds', {
        params: { path: { reference } },
        body: request,
        headers: auth(),
      }),
    ),
};
