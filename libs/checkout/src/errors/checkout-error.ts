/**
 * The module exception of the checkout service: a stable string code the client can branch on,
 * a category the HTTP filter maps to a status, and details (field errors, gateway codes).
 * Services throw these; only the filter knows about HTTP.
 */
export type CheckoutErrorCategory =
  | 'invalid' // 400
  | 'unauthenticated' // 401
  | 'forbidden' // 403
  | 'not_found' // 404
  | 'conflict' // 409
  | 'unprocessable' // 422
  | 'gateway_rejected' // 502
  | 'gateway_unavailable' // 502
  | 'gateway_timeout' // 504
  | 'unavailable'; // 503

export interface FieldProblem {
  field: string;
  reason: string;
}

export class CheckoutError extends Error {
  constructor(
    readonly category: CheckoutErrorCategory,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'CheckoutError';
  }

  static invalid(problems: FieldProblem[]): CheckoutError {
    return new CheckoutError(
      'invalid',
      'validation_failed',
      problems.map((p) => `${p.field}: ${p.reason}`).join('; '),
      { errors: problems },
    );
  }

  static unauthenticated(): CheckoutError {
    return new CheckoutError(
      'unauthenticated',
      'unauthenticated',
      'a valid API key is required in Authorization: Bearer <key>',
    );
  }

  static forbidden(message: string): CheckoutError {
    return new CheckoutError('forbidden', 'forbidden', message);
  }

  static notFound(what: string, reference: string): CheckoutError {
    return new CheckoutError('not_found', `${what}_not_found`, `no ${what} ${reference}`);
  }

  static conflict(code: string, message: string, details: Record<string, unknown> = {}) {
    return new CheckoutError('conflict', code, message, details);
  }
}
