import {
  ArgumentMetadata,
  BadRequestException,
  ValidationError,
  ValidationPipe,
} from '@nestjs/common';
import { FieldProblem } from '../errors/checkout-error';

/** Flattens class-validator's tree into "customer.email: must be an email" pairs. */
export function fieldProblems(errors: ValidationError[], parent = ''): FieldProblem[] {
  return errors.flatMap((error) => {
    // A property named "" is still named, as "" (a client sent an empty key).
    const name = error.property === '' ? '""' : error.property;
    const field = parent ? `${parent}.${name}` : name;
    const own = Object.values(error.constraints ?? {}).map((reason) => ({
      field,
      // class-validator starts its messages with the property; the field already says it. The
      // name is the client's text, so it is compared, never made into a pattern.
      reason: reason.startsWith(`${error.property} `)
        ? reason.slice(error.property.length + 1)
        : reason,
    }));
    return [...own, ...fieldProblems(error.children ?? [], field)];
  });
}

/** Where a NUL character hides in a request's value (PostgreSQL text cannot hold one), or null. */
export function nulCharacterAt(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path || 'value' : null;
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, inner] of Object.entries(value)) {
    const found = key.includes('\u0000')
      ? path
        ? `${path}.${key}`
        : key
      : nulCharacterAt(inner, path ? `${path}.${key}` : key);
    if (found) return found;
  }
  return null;
}

/**
 * Refuses any argument (body, query or path parameter) holding a NUL character before the
 * DTO's own rules: no column can store it, and no field of ours needs it.
 */
class CheckoutValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const found = nulCharacterAt(value, metadata.type === 'param' ? (metadata.data ?? 'path') : '');
    if (found) {
      throw new BadRequestException({
        errors: [{ field: found, reason: 'must not contain the NUL character (\\u0000)' }],
      });
    }
    return super.transform(value, metadata);
  }
}

/** Whitelisted, transformed, every failing field named; unknown fields are refused, not ignored. */
export function checkoutValidationPipe(): ValidationPipe {
  return new CheckoutValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new BadRequestException({ errors: fieldProblems(errors) }),
  });
}
