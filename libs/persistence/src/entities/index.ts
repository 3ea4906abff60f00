/** Every entity the service maps; the data source and the drift check use this one list. */
export const ENTITIES: Function[] = [];
