import { QueryFailedError } from 'typeorm';

/**
 * A unique-index refusal; with `constraint`, only one by that index. From TypeORM (its
 * QueryFailedError wraps the driver's) or from the driver itself (prepared hot statements).
 */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const driverError = (error instanceof QueryFailedError ? error.driverError : error) as
    { code?: string; constraint?: string } | undefined;
  return (
    driverError?.code === '23505' &&
    (constraint === undefined || driverError.constraint === constraint)
  );
}
