import type { components } from './api-types';

type Schemas = components['schemas'];

/** Every stable error code the api can answer, from the document. */
export type ShopErrorCode =
  | Schemas['Error400']['error']['code']
  | Schemas['Error401']['error']['code']
  | Schemas['Error403']['error']['code']
  | Schemas['Error404']['error']['code']
  | Schemas['Error409']['error']['code']
  | Schemas['Error413']['error']['code']
  | Schemas['Error415']['error']['code']
  | Schemas['Error422']['error']['code']
  | Schemas['Error429']['error']['code']
  | Schemas['Error500']['error']['code']
  | Schemas['Error502']['error']['code']
  | Schemas['Error503']['error']['code']
  | Schemas['Error504']['error']['code'];

export interface FieldProblem {
  field: string;
  reason: string;
}

/** The api refused or failed: its HTTP status, its stable `code` and its message. */
export class ShopApiError extends Error {
  override readonly name = 'ShopApiError';

  constructor(
    readonly status: number,
    readonly code: ShopErrorCode,
    message: string,
    /** Every failing field of a 400, with its reason. */
    readonly problems: FieldProblem[] = [],
    /** The whole `error` object (codes carry details, e.g. the gateway's messages). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }

  /**
   * A retry with the same Idempotency-Key may succeed: the rate limit (429), a failure of the api
   * or a dependency (500, 503), or the same request still running. Not a gateway refusal or
   * timeout (502, 504): the order is kept and settled by the service; the same request again would
   * only be told its outcome is unknown. Never any other 4xx.
   */
  get retryable(): boolean {
    return (
      this.status === 429 ||
      this.status === 500 ||
      this.status === 503 ||
      this.code === 'idempotency_request_in_progress'
    );
  }

  static fromAnswer(status: number, body: unknown): ShopApiError {
    const error = (body as { error?: Record<string, unknown> } | null)?.error;
    if (!error || typeof error.code !== 'string') {
      return new ShopApiError(
        status,
        status >= 500 ? 'internal_error' : 'bad_request',
        `HTTP ${status} without an error body (not an answer of the api, perhaps a proxy's)`,
      );
    }
    const problems = Array.isArray(error.errors)
      ? (error.errors as unknown[]).filter(
          (p): p is FieldProblem =>
            typeof (p as FieldProblem)?.field === 'string' &&
            typeof (p as FieldProblem)?.reason === 'string',
        )
      : [];
    return new ShopApiError(
      status,
      error.code as ShopErrorCode,
      String(error.message ?? error.code),
      problems,
      error,
    );
  }
}

/** The api did not answer (a network failure or the client's own timeout). */
export class ShopApiUnreachable extends Error {
  override readonly name = 'ShopApiUnreachable';
  readonly retryable = true;

  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}
