/** Every call the client makes, as named in logs, metrics and errors. */
export type GatewayOperation =
  | 'requestToken'
  | 'registerIpn'
  | 'listIpns'
  | 'submitOrder'
  | 'pushMobileMoney'
  | 'getTransactionStatus'
  | 'getTransactionByMerchantReference'
  | 'queryStatusByConfirmationCode'
  | 'cancelOrder'
  | 'requestRefund';

export interface GatewayErrorDetails {
  operation: GatewayOperation;
  /** Transport status; says little, since the gateway reports most failures with HTTP 200. */
  httpStatus: number | null;
  errorType: string | null;
  /** Compared exactly: the gateway mixes snake_case and PascalCase (InvalidIpnId). */
  code: string | null;
  /** The gateway's message split on "|", empty segments dropped. */
  messages: string[];
  /** Push's model-state 400: field path → messages. */
  fieldMessages?: Record<string, string[]>;
  cause?: unknown;
}

/**
 * A call reached (or tried to reach) the gateway and did not succeed. Subclasses are grouped by
 * what the caller should do, not by how the gateway spelled the failure.
 */
/** What the caller should do about a failed gateway call, as GatewayError.kind names it. */
export const GATEWAY_ERROR_KINDS = [
  'auth',
  'rate_limited',
  'rejected',
  'unavailable',
  'timeout',
  'malformed',
] as const;
export type GatewayErrorKind = (typeof GATEWAY_ERROR_KINDS)[number];

export abstract class GatewayError extends Error {
  abstract readonly kind: GatewayErrorKind;
  readonly operation: GatewayOperation;
  readonly httpStatus: number | null;
  readonly errorType: string | null;
  readonly code: string | null;
  readonly messages: string[];
  readonly fieldMessages: Record<string, string[]>;

  constructor(details: GatewayErrorDetails, summary?: string) {
    super(
      `${details.operation}: ${summary ?? (details.messages.join('; ') || details.code || 'gateway error')}`,
      details.cause === undefined ? undefined : { cause: details.cause },
    );
    this.name = new.target.name;
    this.operation = details.operation;
    this.httpStatus = details.httpStatus;
    this.errorType = details.errorType;
    this.code = details.code;
    this.messages = details.messages;
    this.fieldMessages = details.fieldMessages ?? {};
  }
}

/** Credentials were refused or the bearer token was missing, invalid or expired. Fix configuration. */
export class GatewayAuthError extends GatewayError {
  readonly kind = 'auth' as const;
}

/** The gateway asked us to slow down (HTTP 409 on RegisterIPN). Wait, then retry. */
export class GatewayRateLimitedError extends GatewayError {
  readonly kind = 'rate_limited' as const;
}

/** A business rejection of this request (InvalidIpnId, invalid parameters, model state). Do not retry as is. */
export class GatewayRejectedError extends GatewayError {
  readonly kind = 'rejected' as const;

  /** The notification_id sent is not one the gateway knows (any more): register the URL again. */
  get unknownNotificationId(): boolean {
    return this.code === 'InvalidIpnId';
  }
}

/**
 * The gateway could not be reached or failed on its side. The outcome of a write is UNKNOWN:
 * reconcile with a lookup before acting again.
 */
export class GatewayUnavailableError extends GatewayError {
  readonly kind: 'unavailable' | 'timeout' = 'unavailable';
}

/** No answer within the timeout; like every unavailability, the outcome is unknown. */
export class GatewayTimeoutError extends GatewayUnavailableError {
  override readonly kind = 'timeout' as const;
}

/** The answer had a shape we do not know (plain text, HTML, empty, missing fields). */
export class GatewayMalformedResponseError extends GatewayError {
  readonly kind = 'malformed' as const;
}

/** Refused locally before any call, so the gateway's silent or generic failures never reach a user. */
export class GatewayRequestInvalidError extends Error {
  constructor(
    readonly operation: GatewayOperation,
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${operation}: ${field} ${reason}`);
    this.name = 'GatewayRequestInvalidError';
  }
}
