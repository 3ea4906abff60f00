import { mayHoldUnstorableText, storableJson } from '@app/domain';
import {
  GatewayAuthError,
  GatewayError,
  GatewayErrorDetails,
  GatewayMalformedResponseError,
  GatewayOperation,
  GatewayRateLimitedError,
  GatewayRejectedError,
  GatewayUnavailableError,
} from './gateway-errors';

/** Codes that mean "your credentials or token": a token refresh or a configuration fix, never a retry as is. */
const AUTH_CODES = new Set([
  'invalid_consumer_key_or_secret_provided',
  'invalid_api_credentials_provided',
]);

export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Several validation errors arrive in one string joined by "|", sometimes with empty segments first. */
export function splitGatewayMessages(message: unknown): string[] {
  if (typeof message !== 'string') return [];
  return message
    .split('|')
    .map((segment) => segment.trim())
    .filter((segment) => segment.length > 0);
}

/**
 * Parses a body as JSON; undefined when it is empty, plain text or HTML. A string holding what
 * PostgreSQL cannot store (an escaped NUL or lone surrogate) has it replaced by U+FFFD: the
 * answer is kept (in an order's timeline, its columns) as the gateway sent it but for those.
 */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
  return mayHoldUnstorableText(text) ? storableJson(parsed) : parsed;
}

interface ErrorObject {
  errorType: string | null;
  code: string | null;
  message: string | null;
}

const stringOrNull = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : null;

/** A success record carries an error object whose fields are all null: that is not an error. */
export function readErrorObject(value: unknown): ErrorObject | null {
  if (!isJsonObject(value)) return null;
  const error: ErrorObject = {
    errorType: stringOrNull(value.error_type),
    code: stringOrNull(value.code),
    message: stringOrNull(value.message),
  };
  return error.errorType || error.code || error.message ? error : null;
}

/** 401 and 409 wrap the error object as a JSON string inside `message`: parse it a second time. */
function readDoubleEncodedError(body: JsonObject): ErrorObject | null {
  // Only an object can wrap one: a plain message ("Request processed successfully", on every
  // status lookup) is not parsed, as a failed JSON.parse costs a thrown exception.
  if (typeof body.message !== 'string' || !body.message.trimStart().startsWith('{')) return null;
  const inner = parseJsonBody(body.message);
  if (!isJsonObject(inner)) return null;
  return readErrorObject(inner.error) ?? readErrorObject(inner);
}

function classify(
  operation: GatewayOperation,
  httpStatus: number,
  bodyStatus: unknown,
  details: GatewayErrorDetails,
): GatewayError {
  if (httpStatus === 409 || httpStatus === 429) return new GatewayRateLimitedError(details);
  if (httpStatus === 401 || httpStatus === 403) return new GatewayAuthError(details);
  if (details.code !== null && AUTH_CODES.has(details.code)) return new GatewayAuthError(details);
  if (details.errorType === 'authentication_error') return new GatewayAuthError(details);
  // An invalid or expired bearer token is the only documented HTTP 500 with an envelope, and its status is null.
  if (httpStatus === 500 && bodyStatus === null && operation !== 'requestToken') {
    return new GatewayAuthError(details);
  }
  if (httpStatus >= 500) return new GatewayUnavailableError(details);
  return new GatewayRejectedError(details);
}

/**
 * The one place that decides whether a parsed gateway body is a failure, and of which kind.
 * Returns null when the body carries no error (operation parsers then read the success shape).
 * Errors arrive with HTTP 200, so the body decides, not the status.
 */
export function gatewayErrorFromBody(
  operation: GatewayOperation,
  httpStatus: number,
  body: unknown,
): GatewayError | null {
  if (isJsonObject(body)) {
    const envelope = readErrorObject(body.error);
    const wrapped = envelope ? null : readDoubleEncodedError(body);
    const error = envelope ?? wrapped;
    if (error) {
      return classify(operation, httpStatus, body.status, {
        operation,
        httpStatus,
        errorType: error.errorType,
        code: error.code,
        messages: splitGatewayMessages(error.message),
      });
    }
    if (isJsonObject(body.modelState)) return modelStateError(operation, httpStatus, body);
  }
  if (httpStatus === 401 || httpStatus === 409 || httpStatus === 429) {
    // The status alone says what to do even when the wrapped message does not parse.
    const details = {
      operation,
      httpStatus,
      errorType: null,
      code: null,
      messages: messagesOf(body),
    };
    return httpStatus === 401
      ? new GatewayAuthError(details)
      : new GatewayRateLimitedError(details);
  }
  if (httpStatus >= 500) {
    return new GatewayUnavailableError(
      { operation, httpStatus, errorType: null, code: null, messages: messagesOf(body) },
      `HTTP ${httpStatus}`,
    );
  }
  if (httpStatus >= 400 || body === undefined) {
    // 404/405/415 come as a bare message; HTML or empty bodies have no shape at all.
    return malformedResponse(
      operation,
      httpStatus,
      messagesOf(body),
      `unexpected HTTP ${httpStatus} body`,
    );
  }
  return null;
}

/** Push with a missing required field: HTTP 400, `message` plus field path → messages. */
function modelStateError(
  operation: GatewayOperation,
  httpStatus: number,
  body: JsonObject,
): GatewayRejectedError {
  const fieldMessages: Record<string, string[]> = {};
  for (const [field, value] of Object.entries(body.modelState as JsonObject)) {
    const list = Array.isArray(value) ? value : [value];
    fieldMessages[field] = list.flatMap(splitGatewayMessages);
  }
  return new GatewayRejectedError({
    operation,
    httpStatus,
    errorType: 'model_state',
    code: null,
    messages: [...splitGatewayMessages(body.message), ...Object.values(fieldMessages).flat()],
    fieldMessages,
  });
}

function messagesOf(body: unknown): string[] {
  return isJsonObject(body) ? splitGatewayMessages(body.message) : [];
}

export function malformedResponse(
  operation: GatewayOperation,
  httpStatus: number | null,
  messages: string[],
  summary: string,
): GatewayMalformedResponseError {
  return new GatewayMalformedResponseError(
    { operation, httpStatus, errorType: null, code: null, messages },
    summary,
  );
}
