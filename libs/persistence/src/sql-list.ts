/**
 * A constant list of status values written into SQL text, e.g. `('pending', 'failed')`: where a
 * partial index's predicate must match the query's text, a parameter would not do. Only for
 * values the code defines (they are quoted, not escaped).
 */
export function sqlList(values: readonly string[]): string {
  return `(${values.map((value) => `'${value}'`).join(', ')})`;
}
