import { getSchemaPath } from '@nestjs/swagger';
import type { AttemptRefundStatus, EventSource } from '@app/persistence';
import { MERCHANT_REFERENCE_MAX_LENGTH } from '@app/domain';

/**
 * Pieces of the OpenAPI answer classes that several features' answers share. Every string has a
 * bound (the column it is read from, or the limit applied where it is written) and every integer a
 * range: a client can size its fields, and the contract check refuses an answer beyond them.
 */
export const UUID = { type: String, format: 'uuid', minLength: 36, maxLength: 36 } as const;
/** Our timestamps are always written by Date.toISOString(): UTC, milliseconds, 24 characters. */
export const DATE_TIME = { type: String, format: 'date-time', maxLength: 24 } as const;
export const NULLABLE_DATE_TIME = { ...DATE_TIME, nullable: true } as const;
/** A count or number of ours: a PostgreSQL integer, never negative. */
export const INTEGER = {
  type: 'integer',
  format: 'int32',
  minimum: 0,
  maximum: 2_147_483_647,
} as const;

/** The shop's order id (orders.merchant_reference): what the gateway accepts as `id`. */
export const MERCHANT_REFERENCE = {
  type: String,
  maxLength: MERCHANT_REFERENCE_MAX_LENGTH,
  example: 'ORDER-2041',
} as const;
/** The gateway's tracking id of an order (a uuid at Pesapal; stored as varchar(64)). */
export const ORDER_TRACKING_ID = {
  type: String,
  maxLength: 64,
  example: 'b8a6c3f0-1d2e-4c5b-9a7f-0e1d2c3b4a59',
} as const;
/** An exact amount as a decimal string with two places (numeric(15,2)). */
export const AMOUNT = {
  type: String,
  pattern: '^[0-9]{1,13}\\.[0-9]{2}$',
  maxLength: 16,
  example: '1500.00',
} as const;
/** A signed amount of a report (refunds and reversals are negative); sums may pass numeric(15,2). */
export const SIGNED_AMOUNT = {
  type: String,
  pattern: '^-?[0-9]+\\.[0-9]{2}$',
  maxLength: 32,
  example: '-3000.00',
} as const;
/** An ISO 4217 currency code. */
export const CURRENCY = {
  type: String,
  pattern: '^[A-Z]{3}$',
  minLength: 3,
  maxLength: 3,
  example: 'KES',
} as const;
/** An http(s) URL; the api refuses longer ones where it takes them. */
export const URL_MAX_LENGTH = 2048;
export const URL = { type: String, format: 'uri', maxLength: URL_MAX_LENGTH } as const;

/** Free text of at most `maxLength` characters (the column's length, or where it is cut). */
export function text(maxLength: number, more: Record<string, unknown> = {}) {
  return { type: String, maxLength, ...more };
}

/** A cursor page's `next_cursor`. */
export const NEXT_CURSOR = {
  type: String,
  maxLength: 512,
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
