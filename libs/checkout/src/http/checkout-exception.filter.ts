import {
  ArgumentsHost,
  BadRequestException,
  Catch,
  ExceptionFilter,
  HttpException,
  Logger,
} from '@nestjs/common';
import { FastifyReply } from 'fastify';
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
    const [status, body] = this.toHttp(exception);
    if (body.error.code === 'database_unavailable') {
      void reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
    }
    if (status >= 500) {
      this.logger.error(
        {
          err:
            exception instanceof Error
              ? { name: exception.name, message: exception.message }
              : exception,
        },
        'request failed',
      );
    }
    void reply.status(status).send(body);
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
