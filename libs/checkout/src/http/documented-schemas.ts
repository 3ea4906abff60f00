import { getSchemaPath } from '@nestjs/swagger';
import type { AttemptRefundStatus, EventSource } from '@app/persistence';

/** Pieces of the OpenAPI answer classes that several features' answers share. */
export const UUID = { type: String, format: 'uuid' } as const;
export const DATE_TIME = { type: String, format: 'date-time' } as const;
export const NULLABLE_DATE_TIME = { ...DATE_TIME, nullable: true } as const;
export const INTEGER = { type: 'integer' } as const;

/** A cursor page's `next_cursor`. */
export const NEXT_CURSOR = {
  type: String,
  nullable: true,
  example: null,
  description: 'Give it as `cursor` for the next page; null on the last page',
} as const;

/** Where a timeline entry came from (order_events.source). */
export const EVENT_SOURCES: readonly EventSource[] = [
  'api',
  'ipn',
  'poll',
  'return',
  'admin',
  'worker',
];

/** The refund of a double payment's second payment: an earlier attempt's refund_status. */
export const ATTEMPT_REFUND_STATUSES: readonly AttemptRefundStatus[] = [
  'requested',
  'accepted',
  'rejected',
  'unknown',
];

/**
 * A property holding an object of `model` or null. OpenAPI 3.0 ignores `nullable` beside a $ref
 * (and `allOf` still applies the referenced object schema to null), so null is its own branch.
 * The model must also be registered with @ApiExtraModels where it is used.
 */
export function objectOrNull(model: new () => object) {
  return {
    oneOf: [
      { $ref: getSchemaPath(model) },
      { type: 'object' as const, nullable: true, enum: [null] },
    ],
  };
}
