import { QueryFailedError } from 'typeorm';

/** A unique-index refusal; with `constraint`, only one by that index. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const driverError = error.driverError as { code?: string; constraint?: string } | undefined;
  return (
    driverError?.code === '23505' &&
    (constraint === undefined || driverError.constraint === constraint)
  );
}
