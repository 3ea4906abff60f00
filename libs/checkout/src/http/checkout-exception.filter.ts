import { cutText } from '@app/domain';
import {
  ArgumentsHost,
  BadRequestException,
  Catch,
  ExceptionFilter,
  HttpException,
  Logger,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isHotRoute, loggedRequest } from '@app/common';
import { GatewayError, GatewayRequestInvalidError, GatewayTimeoutError } from '@app/gateway-client';
import { isDatabaseUnavailable } from '@app/persistence';
import { CheckoutError, CheckoutErrorCategory, CheckoutErrorCode } from '../errors/checkout-error';

/** The HTTP status of each error category (the OpenAPI document lists each status's codes). */
export const STATUS_OF_CATEGORY: Record<CheckoutErrorCategory, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
  gateway_rejected: 502,
  gateway_unavailable: 502,
  gateway_timeout: 504,
  unavailable: 503,
  internal: 500,
};

/** A PostgreSQL restart or failover takes seconds: a client retrying after this finds it back. */
const DATABASE_RETRY_AFTER_SECONDS = 2;

export interface ErrorBody {
  error: { code: CheckoutErrorCode; message: string; [detail: string]: unknown };
}

/**
 * The one place where failures become HTTP answers for the REST surfaces (shop and admin).
 * Gateway failures keep the gateway's code and messages; secrets never appear in them.
 */
@Catch()
export class CheckoutExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpErrors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest | undefined>();
    const [status, body] = this.toHttp(exception);
    if (body.error.code === 'database_unavailable') {
      void reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
    }
    if (status >= 500) {
      this.logger.error(
        {
          // A hot route has no request-bound logger: the line names its request itself.
          ...(request && isHotRoute(request) ? { req: loggedRequest(request) } : {}),
          err:
            exception instanceof Error
              ? { name: exception.name, message: exception.message }
              : exception,
        },
        'request failed',
      );
    }
    void reply.status(status).send(bounded(body));
  }

  toHttp(exception: unknown): [number, ErrorBody] {
    if (exception instanceof CheckoutError) {
      return [
        STATUS_OF_CATEGORY[exception.category],
        { error: { code: exception.code, message: exception.message, ...exception.details } },
      ];
    }
    if (exception instanceof GatewayRequestInvalidError) {
      return [
        400,
        {
          error: {
            code: 'validation_failed',
            message: `${exception.field}: ${exception.reason}`,
            errors: [{ field: exception.field, reason: exception.reason }],
          },
        },
      ];
    }
    if (exception instanceof GatewayError) {
      const timeout = exception instanceof GatewayTimeoutError;
      return [
        timeout ? 504 : 502,
        {
          error: {
            code: timeout ? 'gateway_timeout' : 'gateway_error',
            message: timeout
              ? 'the payment gateway did not answer in time; the order is kept and will be reconciled'
              : `the payment gateway refused the request: ${exception.messages.join('; ') || exception.code || exception.kind}`,
            gateway: {
              kind: exception.kind,
              code: exception.code,
              error_type: exception.errorType,
              messages: exception.messages,
              ...(Object.keys(exception.fieldMessages).length > 0
                ? { fields: exception.fieldMessages }
                : {}),
            },
          },
        },
      ];
    }
    if (exception instanceof BadRequestException) {
      return [400, { error: validationBody(exception.getResponse()) }];
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const response = exception.getResponse();
      // Bodies that are not Nest's default {statusCode, message} (terminus's readiness report)
      // are already meant for the client: pass them through untouched.
      if (typeof response === 'object' && response !== null && !('statusCode' in response)) {
        return [status, response as ErrorBody];
      }
      return [status, { error: { code: httpCode(status), message: exception.message } }];
    }
    if (isDatabaseUnavailable(exception)) {
      return [
        503,
        {
          error: {
            code: 'database_unavailable',
            message:
              'the service cannot reach its database right now; retry the same request (with the same Idempotency-Key) shortly',
          },
        },
      ];
    }
    return [500, { error: { code: 'internal_error', message: 'internal error' } }];
  }
}

/**
 * The bounds of an error answer, as the OpenAPI document declares them: the gateway's texts and a
 * long list of failing fields are cut here, so no answer grows with what the gateway or a client sent.
 */
export const ERROR_BOUNDS = {
  message: 1000,
  fields: 100,
  field: 200,
  reason: 500,
  gatewayCode: 100,
  gatewayMessages: 20,
  gatewayMessage: 500,
  gatewayFields: 50,
} as const;

export function bounded(body: ErrorBody): ErrorBody {
  // A body passed through as it is (the readiness report) has its own shape.
  if (typeof body.error?.message !== 'string') return body;
  const error: ErrorBody['error'] = {
    ...body.error,
    message: cutText(body.error.message, ERROR_BOUNDS.message),
  };
  if (Array.isArray(error.errors)) {
    error.errors = (error.errors as { field: string; reason: string }[])
      .slice(0, ERROR_BOUNDS.fields)
      .map((problem) => ({
        field: cutText(problem.field, ERROR_BOUNDS.field),
        reason: cutText(problem.reason, ERROR_BOUNDS.reason),
      }));
  }
  if (typeof error.gateway === 'object' && error.gateway !== null) {
    const gateway = error.gateway as Record<string, unknown>;
    // Only what is there is cut: a stored refusal carries no error_type or fields.
    const texts = (messages: unknown) =>
      Array.isArray(messages)
        ? messages
            .slice(0, ERROR_BOUNDS.gatewayMessages)
            .map((message) => cutText(String(message), ERROR_BOUNDS.gatewayMessage))
        : messages;
    const code = (value: unknown) =>
      typeof value === 'string' ? cutText(value, ERROR_BOUNDS.gatewayCode) : value;
    const fields = gateway.fields as Record<string, unknown> | undefined;
    error.gateway = {
      ...gateway,
      code: code(gateway.code),
      error_type: code(gateway.error_type),
      messages: texts(gateway.messages),
      ...(fields
        ? {
            fields: Object.fromEntries(
              Object.entries(fields)
                .slice(0, ERROR_BOUNDS.gatewayFields)
                .map(([field, messages]) => [cutText(field, ERROR_BOUNDS.field), texts(messages)]),
            ),
          }
        : {}),
    };
  }
  return { error };
}

/** Body-parse failures and the ValidationPipe's field errors, in the same shape as ours. */
function validationBody(response: string | object): ErrorBody['error'] {
  if (typeof response === 'object' && response !== null && 'errors' in response) {
    const errors = (response as { errors: { field: string; reason: string }[] }).errors;
    return {
      code: 'validation_failed',
      message: errors.map((e) => `${e.field}: ${e.reason}`).join('; '),
      errors,
    };
  }
  const message =
    typeof response === 'object' && response !== null && 'message' in response
      ? String((response as { message: unknown }).message)
      : String(response);
  return { code: 'bad_request', message };
}

function httpCode(status: number): CheckoutErrorCode {
  if (status === 404) return 'not_found';
  if (status === 405) return 'method_not_allowed';
  if (status === 413) return 'payload_too_large';
  if (status === 415) return 'unsupported_media_type';
  if (status === 429) return 'rate_limited';
  return status >= 500 ? 'internal_error' : 'bad_request';
}
