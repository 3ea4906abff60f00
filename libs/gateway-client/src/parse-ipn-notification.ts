/**
 * What a notification says, read from wherever the gateway put it: the query string for a GET
 * registration, a JSON body for POST (its Content-Type is not documented, so a form body or a
 * JSON text sent as text/plain parse too). The payload only names an order; nothing in it is trusted.
 */
export const IPN_TYPES = ['IPNCHANGE', 'RECURRING'] as const;
export type IpnType = (typeof IPN_TYPES)[number];

export interface IpnFields {
  orderTrackingId: string | null;
  merchantReference: string | null;
  notificationType: string | null;
}

export type IpnVerdict =
  | { kind: 'accept'; type: IpnType; orderTrackingId: string; merchantReference: string }
  /** Stored as 'ignored' and acknowledged: not a notification we act on (e.g. CALLBACKURL). */
  | { kind: 'ignore'; reason: string }
  /** Stored as 'ignored' and answered 400: a required field is missing. */
  | { kind: 'reject'; reason: string };

const MAX_FIELD = 150;

/** Merges the query with a body that may be an object, a JSON text, a form text or nothing. */
export function readIpnFields(query: unknown, body: unknown): IpnFields {
  const merged: Record<string, unknown> = { ...asRecord(query), ...asRecord(parseBody(body)) };
  return {
    orderTrackingId: field(merged, 'OrderTrackingId'),
    merchantReference: field(merged, 'OrderMerchantReference'),
    notificationType: field(merged, 'OrderNotificationType'),
  };
}

export function judgeIpn(fields: IpnFields): IpnVerdict {
  const missing = (
    [
      ['OrderTrackingId', fields.orderTrackingId],
      ['OrderMerchantReference', fields.merchantReference],
      ['OrderNotificationType', fields.notificationType],
    ] as const
  )
    .filter(([, value]) => value === null || value === '')
    .map(([name]) => name);
  if (missing.length > 0) return { kind: 'reject', reason: `missing ${missing.join(', ')}` };
  const tooLong = [fields.orderTrackingId, fields.merchantReference].some(
    (value) => (value ?? '').length > MAX_FIELD,
  );
  if (tooLong) return { kind: 'reject', reason: `a reference is longer than ${MAX_FIELD}` };
  const type = (fields.notificationType ?? '').toUpperCase();
  if (!(IPN_TYPES as readonly string[]).includes(type)) {
    return {
      kind: 'ignore',
      reason: `notification type ${fields.notificationType} is not acted on`,
    };
  }
  return {
    kind: 'accept',
    type: type as IpnType,
    orderTrackingId: fields.orderTrackingId as string,
    merchantReference: fields.merchantReference as string,
  };
}

/** The acknowledgement the gateway expects, echoing what it sent; status 500 = not stored. */
export function ipnAcknowledgement(fields: IpnFields, status: 200 | 500) {
  return {
    orderNotificationType: fields.notificationType ?? '',
    orderTrackingId: fields.orderTrackingId ?? '',
    orderMerchantReference: fields.merchantReference ?? '',
    status,
  };
}

function parseBody(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  const text = body.trim();
  if (text === '') return {};
  if (text.startsWith('{')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return {};
    }
  }
  return Object.fromEntries(new URLSearchParams(text));
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** Field names are matched case-insensitively; only a string (or number) value counts. */
function field(source: Record<string, unknown>, name: string): string | null {
  const key = Object.keys(source).find(
    (candidate) => candidate.toLowerCase() === name.toLowerCase(),
  );
  const value = key === undefined ? undefined : source[key];
  if (typeof value === 'string') return value.trim().slice(0, 512);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}
