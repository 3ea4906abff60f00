import {
  CheckoutErrorCategory,
  CheckoutErrorCode,
  ERROR_CODES,
  NotFoundSubject,
} from './error-codes';

export type { CheckoutErrorCategory, CheckoutErrorCode } from './error-codes';

/**
 * The module exception of the checkout service: a stable code from the catalogue (ERROR_CODES)
 * the client can branch on, its category (which the HTTP filter maps to a status) and details
 * (field errors, gateway codes). Services throw these; only the filter knows about HTTP.
 */
export interface FieldProblem {
  field: string;
  reason: string;
}

export class CheckoutError extends Error {
  readonly category: CheckoutErrorCategory;

  constructor(
    readonly code: CheckoutErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'CheckoutError';
    this.category = ERROR_CODES[code];
  }

  static invalid(problems: FieldProblem[]): CheckoutError {
    return new CheckoutError(
      'validation_failed',
      problems.map((p) => `${p.field}: ${p.reason}`).join('; '),
      { errors: problems },
    );
  }

  static unauthenticated(): CheckoutError {
    return new CheckoutError(
      'unauthenticated',
      'a valid API key is required in Authorization: Bearer <key>',
    );
  }

  static forbidden(message: string): CheckoutError {
    return new CheckoutError('forbidden', message);
  }

  static notFound(what: NotFoundSubject, reference: string): CheckoutError {
    return new CheckoutError(`${what}_not_found`, `no ${what} ${reference}`);
  }
}
