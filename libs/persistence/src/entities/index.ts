import { EntitySchema } from 'typeorm';

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
type EntityTarget = Function | EntitySchema;

/** Every entity the service maps; the data source and the drift check use this one list. */
export const ENTITIES: EntityTarget[] = [];
