import { DataSource, EntityTarget } from 'typeorm';

/**
 * Turns a raw row (from `RETURNING *` or a hand-written SELECT) into the entity: pg has already
 * parsed the column types, so only the column names need mapping.
 */
export function hydrateRow<T extends object>(
  dataSource: DataSource,
  target: EntityTarget<T> & (new () => T),
  raw: Record<string, unknown>,
): T {
  const entity = new target();
  for (const column of dataSource.getMetadata(target).columns) {
    if (column.databaseName in raw) column.setEntityValue(entity, raw[column.databaseName]);
  }
  return entity;
}
