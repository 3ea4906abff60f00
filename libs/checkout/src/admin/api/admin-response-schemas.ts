/**
 * What the admin answers' documentation shares (OpenAPI only): the field bounds and lists several
 * features' answers use.
 */

export type Answer<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;

/**
 * The members of a union that has no list of its own, as a list: the record makes the compiler
 * check that it names every member and nothing else.
 */
export function membersOf<T extends string>(members: Record<T, true>): T[] {
  return Object.keys(members) as T[];
}

/** order_events.actor, reconciliation_reports.requested_by: an admin key's name, varchar(100). */
export const ACTOR_LENGTH = 100;
