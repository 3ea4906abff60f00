import {
  ArgumentMetadata,
  BadRequestException,
  ValidationError,
  ValidationPipe,
} from '@nestjs/common';
import type { ValidatorOptions } from 'class-validator';
import { FieldProblem } from '../errors/checkout-error';
import { bodyInstanceOf, NOT_BUILT } from './body-instances';
import { passesEveryRule } from './body-rules';

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
  /** Each class's rules as Nest's binary-value check reads them: once, not once per request. */
  private readonly rulesForBinaryCheck = new Map<unknown, unknown[]>();

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const found = nulCharacterAt(value, metadata.type === 'param' ? (metadata.data ?? 'path') : '');
    if (found) {
      throw new BadRequestException({
        errors: [{ field: found, reason: 'must not contain the NUL character (\\u0000)' }],
      });
    }
    // A body that passes every rule is answered with the instance class-transformer would
    // build, built without it (bodyInstanceOf); any other takes Nest's way, which names what fails.
    if (metadata.type === 'body') {
      const entity = bodyInstanceOf(metadata.metatype, value);
      if (entity !== NOT_BUILT && passesEveryRule(entity, this.validatorOptions) === true) {
        return entity;
      }
    }
    return super.transform(value, metadata);
  }

  protected override findNestedBinaryValues(
    object: unknown,
    metadataCache: Map<unknown, unknown[]> = this.rulesForBinaryCheck,
  ): ValidationError[] {
    return super.findNestedBinaryValues(object, metadataCache);
  }

  /**
   * A value that passes every rule is answered at once (body-rules: the same validators, their
   * lookups made once); any other goes through class-validator, which names each failing field.
   */
  protected override validate(
    object: object,
    options?: ValidatorOptions,
  ): Promise<ValidationError[]> | ValidationError[] {
    if (passesEveryRule(object, options ?? {}) === true) return [];
    return super.validate(object, options);
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
