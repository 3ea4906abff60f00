import { BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';
import { FieldProblem } from '../errors/checkout-error';

/** Flattens class-validator's tree into "customer.email: must be an email" pairs. */
export function fieldProblems(errors: ValidationError[], parent = ''): FieldProblem[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((reason) => ({
      field,
      reason: reason.replace(new RegExp(`^${error.property} `), ''),
    }));
    return [...own, ...fieldProblems(error.children ?? [], field)];
  });
}

/** Whitelisted, transformed, every failing field named; unknown fields are refused, not ignored. */
export function checkoutValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new BadRequestException({ errors: fieldProblems(errors) }),
  });
}
